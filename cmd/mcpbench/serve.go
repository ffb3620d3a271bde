package main

// serveMain is replaced when the command is built.
var serveMain = notYet("serve")
