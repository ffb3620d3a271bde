package main

// compareMain is replaced when the command is built.
var compareMain = notYet("compare")
