package postgres

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
	"sync"
	"testing"

	"github.com/cairnmemory/cairn"
	"github.com/jackc/pgx/v5/pgproto3"
)

// TestConnectErrorCauseFirst: a server that drops the TLS attempt and
// then refuses the plain one (as a server shutting down does) is reported
// by its refusal first, the TLS failure after it, and the error is still
// ErrUnavailable.
func TestConnectErrorCauseFirst(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return // the listener closed
			}
			b := pgproto3.NewBackend(c, c)
			msg, err := b.ReceiveStartupMessage()
			if _, ssl := msg.(*pgproto3.SSLRequest); ssl || err != nil {
				c.(*net.TCPConn).SetLinger(0) // a reset, as a server going down gives
				c.Close()
				continue
			}
			b.Send(&pgproto3.ErrorResponse{Severity: "FATAL", SeverityUnlocalized: "FATAL", Code: "57P03",
				Message: "the database system is shutting down"})
			b.Flush()
			c.Close()
		}
	}()
	defer func() { ln.Close(); wg.Wait() }()
	url := fmt.Sprintf("postgres://cairn@%s/cairn?sslmode=prefer&connect_timeout=5", ln.Addr())
	_, err = openPool(context.Background(), url, "cairn", 1)
	if err == nil {
		t.Fatal("connected to a server that refuses every connection")
	}
	msg := err.Error()
	t.Logf("error: %s", msg)
	cause, tls := strings.Index(msg, "the database system is shutting down"), strings.Index(msg, "tls error")
	if cause < 0 || tls < 0 || cause > tls {
		t.Errorf("error = %q, want the server's refusal before the TLS failure", msg)
	}
	if !errors.Is(err, cairn.ErrUnavailable) {
		t.Errorf("error = %v, want ErrUnavailable", err)
	}
}
