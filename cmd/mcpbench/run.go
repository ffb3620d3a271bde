package main

// runMain is replaced when the command is built.
var runMain = notYet("run")
