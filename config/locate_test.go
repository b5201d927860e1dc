package config

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairnmemory/cairn"
)

func TestLocate(t *testing.T) {
	home := filepath.FromSlash("/home/me")
	tests := []struct {
		name       string
		env        map[string]string
		wantConfig string
		wantData   string
	}{
		{"defaults", nil, "/home/me/.config/cairn/config.toml", "/home/me/.local/share/cairn"},
		{"cairn home", map[string]string{"CAIRN_HOME": "/srv/cairn"}, "/srv/cairn/config.toml", "/srv/cairn"},
		{"cairn home wins over xdg", map[string]string{"CAIRN_HOME": "/srv/cairn", "XDG_CONFIG_HOME": "/x/c", "XDG_DATA_HOME": "/x/d"}, "/srv/cairn/config.toml", "/srv/cairn"},
		{"xdg config only", map[string]string{"XDG_CONFIG_HOME": "/x/c"}, "/x/c/cairn/config.toml", "/home/me/.local/share/cairn"},
		{"xdg data only", map[string]string{"XDG_DATA_HOME": "/x/d"}, "/home/me/.config/cairn/config.toml", "/x/d/cairn"},
		{"xdg both", map[string]string{"XDG_CONFIG_HOME": "/x/c", "XDG_DATA_HOME": "/x/d"}, "/x/c/cairn/config.toml", "/x/d/cairn"},
		{"relative xdg ignored", map[string]string{"XDG_CONFIG_HOME": "rel/c", "XDG_DATA_HOME": "rel/d"}, "/home/me/.config/cairn/config.toml", "/home/me/.local/share/cairn"},
		{"empty cairn home ignored", map[string]string{"CAIRN_HOME": ""}, "/home/me/.config/cairn/config.toml", "/home/me/.local/share/cairn"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			getenv := func(k string) string { return tt.env[k] }
			gotConfig, gotData := Locate(getenv, home)
			if gotConfig != filepath.FromSlash(tt.wantConfig) || gotData != filepath.FromSlash(tt.wantData) {
				t.Fatalf("Locate = %q, %q; want %q, %q", gotConfig, gotData, tt.wantConfig, tt.wantData)
			}
		})
	}
}

func TestAgentDir(t *testing.T) {
	tests := []struct {
		agent   string
		wantErr bool
	}{
		{"main", false},
		{"a", false},
		{"Agent_1.v2-x", false},
		{"9lives", false},
		{strings.Repeat("a", 64), false},
		{strings.Repeat("a", 65), true},
		{"", true},
		{".hidden", true},
		{"-dash", true},
		{"a/b", true},
		{"..", true},
		{"has space", true},
		{"é", true},
	}
	for _, tt := range tests {
		got, err := AgentDir("/data", tt.agent)
		if tt.wantErr {
			if !errors.Is(err, cairn.ErrInvalid) || !strings.Contains(err.Error(), "1 to 64 letters") {
				t.Errorf("AgentDir(%q) error = %v; want ErrInvalid naming the allowed form", tt.agent, err)
			}
			continue
		}
		if want := filepath.Join("/data", "agents", tt.agent); err != nil || got != want {
			t.Errorf("AgentDir(%q) = %q, %v; want %q", tt.agent, got, err, want)
		}
	}
}
