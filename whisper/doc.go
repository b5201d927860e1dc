// Package whisper brings memory to an agent before it answers: the
// prompt-time whisper API (C28) that runs the enabled whisperers of a
// turn concurrently and puts their sections in one <cairn_memory> block,
// and the Memory Whisperer (C29), which finds what past work says about
// the request and injects at most two verbatim excerpts a judge found
// useful.
//
// A whisperer is anything that implements Whisperer; the Skill Whisperer
// (C30) lives in its own package and plugs into the same Service.
package whisper
