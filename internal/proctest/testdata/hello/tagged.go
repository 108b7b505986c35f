//go:build loud

package main

func init() { word = "loud" }
