package main

// sweepMain is replaced when the command is built.
var sweepMain = notYet("sweep")
