package main

// probeMain is replaced when the command is built.
var probeMain = notYet("probe")
