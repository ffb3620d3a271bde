package main

// versionMain is replaced when the command is built.
var versionMain = notYet("version")
