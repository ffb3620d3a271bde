package main

// logscanMain is replaced when the command is built.
var logscanMain = notYet("logscan")
