package redact

import "testing"

// TestFetchesSecret: commands whose output is a secret, as a shell line
// or a tool call's JSON input, and commands that merely look alike (ux F22).
func TestFetchesSecret(t *testing.T) {
	for _, c := range []string{
		"op read op://prod/db/password",
		`{"command":["printenv","STRIPE_SECRET_KEY"]}`,
		`{"command": ["cat", "/root/.pgpass"]}`,
		`{"command":"op read op://prod/db/password"}`,
		`{"command":"vault kv get -field=password secret/prod/db","description":"Read the DB password"}`,
		"kubectl get secret db -o jsonpath='{.data.password}' | base64 -d",
		"kubectl get secrets app -o yaml",
		"aws configure get aws_secret_access_key",
		"cat ~/.config/cairn/token",
		`{"command":"cat ~/.config/cairn/token"}`,
		"security find-generic-password -w -s openai",
		"printenv DATABASE_PASSWORD",
		`bash -lc "echo $GITHUB_TOKEN"`,
		"pass show db",
		"gcloud auth print-access-token",
		"heroku auth:token",
		"gh auth token",
		"cd app && sops -d secrets.enc.yaml",
		"openssl rand -hex 32",
		"sudo cat /etc/app/credentials.json",
		"head -c 64 ~/.ssh/id_ed25519",
		"cat .env.production",
		`{"file_path":"/home/dev/app/.env"}`,
		`{"file_path":"/srv/tls/server.key"}`,
		"aws secretsmanager get-secret-value --secret-id prod/db",
		"aws ssm get-parameter --name /prod/db --with-decryption",
	} {
		if !FetchesSecret(c) {
			t.Errorf("FetchesSecret(%q) = false, want true", c)
		}
	}
	for _, c := range []string{
		"",
		"go test ./auth/...",
		"cat README.md",
		"cat /etc/passwd",
		"cat ~/.ssh/id_ed25519.pub",
		"cat .env.example",
		"echo $PATH",
		`curl -H "Authorization: Bearer $(cat ~/.config/cairn/token)" host:7777/v1/search`,
		"GITHUB_TOKEN=$(gh auth token) gh api /user",
		"export PW=`op read op://prod/db/password`",
		"more token (the leading separator)",
		"tail token of the list",
		"echo ${#TOKEN}",
		"printenv HOME",
		"kubectl get secrets",
		"kubectl describe secret db",
		"aws configure get region",
		"vault status",
		"op signin",
		"grep -rn password src/",
		"cat > ~/.config/cairn/token <<EOF",
		`{"file_path":"/home/dev/app/token_test.go"}`,
		`{"file_path":"/home/dev/app/main.go"}`,
	} {
		if FetchesSecret(c) {
			t.Errorf("FetchesSecret(%q) = true, want false", c)
		}
	}
}
