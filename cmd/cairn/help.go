package main

// Help is generated from the flag definitions. The standard library's flag
// package stays (every command already defines its flags with it, and a
// CLI library would add a dependency and change how flags parse, which
// scripts rely on); what it lacks is a renderer, so this file renders each
// FlagSet's VisitAll with the command table's synopsis and summary. A flag
// or command added anywhere is in the help without a second edit, and
// help_test.go fails if one is not.

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
)

// helpError is what parse returns when a command is given -h, -help or
// --help: run prints the command's usage to stdout and exits 0.
type helpError struct{ fs *flag.FlagSet }

func (h *helpError) Error() string { return h.fs.Name() + ": help requested" }

// command returns the table entry of the flag set's command.
func (h *helpError) command() *command {
	return lookup(strings.TrimPrefix(h.fs.Name(), "cairn "))
}

// text is the usage of one command: synopsis, summary, every flag.
func (h *helpError) text() string {
	var b strings.Builder
	c := h.command()
	path, args, summary := strings.TrimPrefix(h.fs.Name(), "cairn "), "", ""
	if c != nil {
		args, summary = c.args, c.summary
	}
	fmt.Fprintf(&b, "usage: cairn %s", path)
	if args != "" {
		b.WriteString(" " + args)
	}
	docs := flagDocs(h.fs)
	if len(docs) > 0 {
		b.WriteString(" [flags]")
	}
	b.WriteString("\n")
	if summary != "" {
		fmt.Fprintf(&b, "\n%s\n", summary)
	}
	if len(docs) > 0 {
		b.WriteString("\nFlags:\n")
		writeFlagTable(&b, docs)
	}
	return b.String()
}

// flagDoc is one flag as help shows it.
type flagDoc struct {
	name, arg, usage string
	repeat, global   bool
}

// argNames names the values of flags whose name alone says too little.
var argNames = map[string]string{
	"agent": "NAME", "config": "FILE", "corpus": "NAME", "data": "FILE", "audit": "FILE", "token-file": "FILE",
	"root": "SOURCE=DIR", "source": "ID", "account": "ID", "conversation": "ID", "thread": "ID",
	"started-from": "TIME", "started-to": "TIME", "cwd": "DIR", "provider": "NAME", "hub": "URL",
	"addr": "HOST:PORT", "allow-origin": "ORIGIN",
}

// flagDocs describes the flags of fs in VisitAll's (alphabetical) order.
// The value's name is the usage's `backquoted` word, else argNames', else
// N for numbers, DURATION, or the last word of the flag's name in capitals.
func flagDocs(fs *flag.FlagSet) []flagDoc {
	var out []flagDoc
	fs.VisitAll(func(f *flag.Flag) {
		arg, usage := flag.UnquoteUsage(f)
		_, repeat := f.Value.(*stringList)
		if !strings.Contains(f.Usage, "`") {
			switch arg {
			case "int", "uint", "int64", "uint64":
				arg = "N"
			case "float":
				arg = "X"
			case "duration":
				arg = "DURATION"
			case "":
			default:
				words := strings.Split(f.Name, "-")
				arg = strings.ToUpper(words[len(words)-1])
				if n := argNames[f.Name]; n != "" {
					arg = n
				}
			}
		}
		if repeat && !strings.Contains(usage, "repeatable") {
			usage += " (repeatable)"
		}
		if d := defaultText(f); d != "" && !strings.Contains(usage, "default") {
			usage += " (default " + d + ")"
		}
		out = append(out, flagDoc{name: f.Name, arg: arg, usage: usage, repeat: repeat,
			global: globalUsage[f.Name] != "" && f.Usage == globalUsage[f.Name]})
	})
	return out
}

// defaultText is a flag's default as help shows it, or "" for a zero one.
func defaultText(f *flag.Flag) string {
	switch f.DefValue {
	case "", "0", "false", "0s", "[]":
		return ""
	}
	if g, ok := f.Value.(flag.Getter); ok {
		if _, isString := g.Get().(string); isString {
			return fmt.Sprintf("%q", f.DefValue)
		}
	}
	return f.DefValue
}

func (d flagDoc) synopsis() string {
	s := "--" + d.name
	if d.arg != "" {
		s += " " + d.arg
	}
	return s
}

func writeFlagTable(w io.Writer, docs []flagDoc) {
	width := 0
	for _, d := range docs {
		width = max(width, len(d.synopsis()))
	}
	for _, d := range docs {
		fmt.Fprintf(w, "  %-*s  %s\n", width, d.synopsis(), d.usage)
	}
}

// commandHelp parses --help with the command's own flag set, under a
// cancelled context so that a command that ran instead would stop at once.
func commandHelp(ctx context.Context, c *command) (*helpError, error) {
	ctx, cancel := context.WithCancel(ctx)
	cancel()
	err := c.run(ctx, newEnv(io.Discard, io.Discard), []string{"--help"})
	var h *helpError
	if errors.As(err, &h) {
		return h, nil
	}
	return nil, fmt.Errorf("help %s: the command did not answer --help (%v)", c.path, err)
}

const helpWidth = 100

// writeUsage prints `cairn help`: every command with its summary, then
// every command's flags, then the global ones.
func writeUsage(ctx context.Context, w io.Writer) error {
	b := &strings.Builder{}
	b.WriteString("cairn: long-term memory for AI agents\n\nUsage: cairn COMMAND [ARGS] [FLAGS]\n\nCommands:\n")
	width := 0
	for _, c := range commands {
		width = max(width, len(c.path)+len(c.args)+1)
	}
	for _, c := range commands {
		fmt.Fprintf(b, "  %-*s  %s\n", width, strings.TrimSpace(c.path+" "+c.args), c.summary)
	}
	b.WriteString("\nFlags of each command (cairn COMMAND --help describes them):\n")
	pw := 0
	for _, c := range commands {
		pw = max(pw, len(c.path))
	}
	var global *flag.FlagSet
	for i := range commands {
		h, err := commandHelp(ctx, &commands[i])
		if err != nil {
			return err
		}
		if commands[i].path == "help" {
			global = h.fs
		}
		var parts []string
		for _, d := range flagDocs(h.fs) {
			if d.global {
				continue
			}
			p := "[" + d.synopsis() + "]"
			if d.repeat {
				p += "..."
			}
			parts = append(parts, p)
		}
		if len(parts) > 0 {
			writeWrapped(b, fmt.Sprintf("  %-*s  ", pw, commands[i].path), parts)
		}
	}
	b.WriteString("\nGlobal flags (any position, before or after the command):\n")
	var docs []flagDoc
	for _, d := range flagDocs(global) {
		if d.global {
			docs = append(docs, d)
		}
	}
	docs = append(docs, flagDoc{name: "help", usage: "print the usage of cairn, or of the command before it (also -h)"},
		flagDoc{name: "version", usage: "same as cairn version (before the command)"})
	writeFlagTable(b, docs)
	b.WriteString("\nExit status: 0 on success, 1 on a runtime failure, 2 on bad usage.\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// writeWrapped writes parts after a lead, wrapping at helpWidth with
// continuation lines indented to the lead's width.
func writeWrapped(b *strings.Builder, lead string, parts []string) {
	line := lead
	for i, p := range parts {
		if i > 0 && len(line)+1+len(p) > helpWidth {
			b.WriteString(strings.TrimRight(line, " ") + "\n")
			line = strings.Repeat(" ", len(lead))
		} else if i > 0 {
			line += " "
		}
		line += p
	}
	b.WriteString(line + "\n")
}

// writeGroupUsage prints the commands under a group ("cairn corpus --help").
func writeGroupUsage(w io.Writer, path string) error {
	b := &strings.Builder{}
	fmt.Fprintf(b, "usage: cairn %s COMMAND [ARGS] [FLAGS]\n\nCommands:\n", path)
	cs := group(path)
	width := 0
	for _, c := range cs {
		width = max(width, len(c.path)+len(c.args)+1)
	}
	for _, c := range cs {
		fmt.Fprintf(b, "  %-*s  %s\n", width, strings.TrimSpace(c.path+" "+c.args), c.summary)
	}
	fmt.Fprintf(b, "\nRun cairn %s COMMAND --help for a command's flags.\n", path)
	_, err := io.WriteString(w, b.String())
	return err
}
