package main

// mergeMain is replaced when the command is built.
var mergeMain = notYet("merge")
