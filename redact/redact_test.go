package redact

import (
	"encoding/base64"
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// r repeats s n times. Every secret below is built from fixed fragments so
// no realistic key is committed.
func r(s string, n int) string { return strings.Repeat(s, n) }

// secretCase is text whose secret (between before and after) must become
// Placeholder(kind), with everything else kept.
type secretCase struct {
	kind, before, secret, after string
}

func (c secretCase) in() string { return c.before + c.secret + c.after }
func (c secretCase) want() string {
	return c.before + Placeholder(c.kind) + strings.Repeat("\n", strings.Count(c.secret, "\n")) + c.after
}

var (
	pw     = "Tr0ub4dor-" + "q7Z"
	hex32  = r("0a1b2c3d", 4)
	b64key = r("Ab3+Cd4/", 11) + "=="
	pemRSA = "-----BEGIN RSA PRIVATE KEY-----\n" + r("MIIEpA"+r("Ab1+", 14)+"\n", 3) + "-----END RSA PRIVATE KEY-----"
	jwtTok = "eyJhbGciOiJIUzI1NiJ9" + ".eyJzdWIiOiIxMjM0NTY3ODkwIn0." + r("Ab1_", 8)
)

func secretCases() []secretCase {
	gcpBody := "-----BEGIN PRIVATE KEY-----\\n" + r("MIIEvQ"+r("Ab1+", 14)+"\\n", 2) + "-----END PRIVATE KEY-----\\n"
	gcpBody2 := strings.ReplaceAll(gcpBody, `\n`, `\\n`)
	return append(append(append(append(shapeCases(), toolCases()...), moreProviderCases()...), nameValueCases()...), []secretCase{ // shapes_test.go, tools_test.go, providers_test.go, namevalue_test.go: ux U2-U5, U17, U21
		{kindGCP, `{"type": "service_account", "private_key": "`, gcpBody, `", "client_email": "svc@proj.iam.gserviceaccount.com"}`},
		{kindGCP, `{"msg": "{\"private_key\": \"`, gcpBody2, `\"}"}`},
		{kindPrivateKey, "key:\n", pemRSA, "\nafter"},
		{kindPrivateKey, "", "-----BEGIN OPENSSH PRIVATE KEY-----\n" + r("b3BlbnNzaC1rZXktdjEAAAAA"+r("Zx9/", 8)+"\n", 2) + "-----END OPENSSH PRIVATE KEY-----", "\n"},
		{kindPrivateKey, "x ", "-----BEGIN EC PRIVATE KEY-----\\n" + r("MHcCAQEE"+r("Qw2=", 8), 1) + "\\n-----END EC PRIVATE KEY-----", " y"},
		{kindPrivateKey, "", "-----BEGIN PGP PRIVATE KEY BLOCK-----\n\nlQdGBF" + r("Pk7/", 12) + "\n-----END PGP PRIVATE KEY BLOCK-----", ""},
		{kindPrivateKey, "truncated: ", "-----BEGIN PRIVATE KEY-----\n" + r("MIIEvQ"+r("Ab1+", 14)+"\n", 2) + r("Xy2/", 4), "\n... output cut"},
		{"openai-key", "OPENAI_API_KEY=", "sk-proj-" + r("Ab1_", 10), "\n"},
		{"openai-key", `client = OpenAI(api_key="`, "sk-" + r("Ab12", 12), `")`},
		{"anthropic-key", "ANTHROPIC_API_KEY=", "sk-ant-api03-" + r("Xy9-", 20), ""},
		{"anthropic-key", `{"key":"`, "sk-ant-admin01-" + r("Qw3_", 10), `"}`},
		{"google-api-key", "key=", "AIza" + r("Sy1_", 8) + "abc", "&q=1"},
		{"google-api-key", `"apiKey": "`, "AIza" + r("Bq2-", 8) + "xyz", `",`},
		{"google-oauth-token", "access_token=", "ya29." + r("a0B_", 10), ""},
		{"google-oauth-token", "client_secret: ", "GOCSPX-" + r("Ab1-", 7), ""},
		{"aws-access-key-id", "aws_access_key_id = ", "AKIA" + "ABCDEFGH23456789", "\n"},
		{"aws-access-key-id", `"AccessKeyId": "`, "ASIA" + "Q2W3E4R5T6Y7U8I9", `"`},
		{"aws-secret-access-key", "aws_secret_access_key = ", r("Ab3/Cd4+", 5), "\n"},
		{"aws-secret-access-key", `"SecretAccessKey": "`, r("Zy8+Xw7/", 5), `",`},
		{"azure-storage-key", "DefaultEndpointsProtocol=https;AccountName=acct;AccountKey=", b64key, ";EndpointSuffix=core.windows.net"},
		{"azure-storage-key", "Endpoint=sb://ns.servicebus.windows.net/;SharedAccessKeyName=root;SharedAccessKey=", r("Kq9+Lm8/", 5) + "=", ""},
		{"github-token", "GITHUB_TOKEN=", "ghp_" + r("A1b2", 9), ""},
		{"github-token", "git clone https://x-access-token:", "ghs_" + r("C3d4", 9), "@github.com/org/repo.git"},
		{"github-token", `"token": "`, "github_pat_" + r("11AB_cd", 12), `"`},
		{"gitlab-token", "PRIVATE-TOKEN: ", "glpat-" + r("Ab1-", 5), ""},
		{"gitlab-token", "token=", "gldt-" + r("Zx9_", 6), " done"},
		{"slack-token", "SLACK_BOT_TOKEN=", "xoxb-" + "1234567890-1234567890123-" + r("Ab1c", 6), ""},
		{"slack-token", `token: "`, "xoxp-" + "2234567890-3234567890123-" + r("Dd4e", 8), `"`},
		{"slack-webhook", "url: ", "https://hooks.slack.com/services/T0" + "1234567/B0" + "1234567/" + r("Ab1c", 6), "\n"},
		{"slack-webhook", `"webhook":"`, "https://hooks.slack.com/workflows/T0" + "7654321/A0" + "7654321/" + r("Zz9y", 6), `"`},
		{"discord-webhook", "post to ", "https://discord.com/api/webhooks/123456789012345678/" + r("Ab1_-", 12), " now"},
		{"discord-webhook", "", "https://canary.discordapp.com/api/webhooks/923456789012345678/" + r("Qz7-", 12), ""},
		{"discord-bot-token", "discord bot: client.run('", "M" + r("Ab1c", 6) + ".Gh2_k9." + r("Ab1-c", 6), "')"},
		{"discord-bot-token", "DISCORD_TOKEN=", "N" + r("Zq8x", 6) + ".Xy7-p2." + r("Lm3_k", 6), ""},
		{"telegram-bot-token", "bot = Bot('", "123456789:AA" + r("Ab1_", 8) + "c", "')"},
		{"telegram-bot-token", "https://api.telegram.org/bot", "9876543210:AA" + r("Zx8-", 8) + "q", "/getMe"},
		{"stripe-key", "stripe.api_key = '", "sk_live_" + r("Ab1c", 6), "'"},
		{"stripe-key", "STRIPE_SECRET=", "rk_test_" + r("Zy9x", 6), ""},
		{"stripe-key", "endpoint secret ", "whsec_" + r("Ab1c", 8), ""},
		{"sendgrid-key", "SENDGRID_API_KEY=", "SG." + r("Ab1_", 5) + "cd." + r("Ab1-", 10) + "xyz", ""},
		{"sendgrid-key", `"key": "`, "SG." + r("Qz9-", 5) + "ab." + r("Lm2_", 10) + "uvw", `"`},
		{"twilio-api-key", "TWILIO_API_KEY=", "SK" + hex32, ""},
		{"twilio-api-key", `api_key_sid: "`, "SK" + r("9f8e7d6c", 4), `"`},
		{"twilio-auth-token", "TWILIO_AUTH_TOKEN=", r("9f8e7d6c", 4), ""},
		{"twilio-auth-token", `client = Client("AC` + r("1a2b3c4d", 4) + `", "`, r("5e6f7a8b", 4), `")`},
		{"npm-token", "NPM_TOKEN=", "npm_" + r("Ab1c", 9), ""},
		{"npm-token", "//registry.npmjs.org/:_authToken=", "a1b2c3d4-e5f6-4a7b-8c9d-" + "0e1f2a3b4c5d", "\n"},
		{"pypi-token", "password = ", "pypi-AgEIcHlwaS5vcmc" + r("Ab1_", 14), ""},
		{"pypi-token", "TWINE_PASSWORD=", "pypi-AgENdGVzdC5weXBpLm9yZw" + r("Zx9-", 14), ""},
		{"huggingface-token", "HF_TOKEN=", "hf_" + r("Ab1c", 9), ""},
		{"huggingface-token", "login(token='", "hf_" + r("Qz8y", 10), "')"},
		{"vault-token", "VAULT_TOKEN=", "hvs." + r("Ab1_", 7), ""},
		{"vault-token", "X-Vault-Token: ", "hvb." + r("Zq9-", 8), ""},
		{"doppler-token", "DOPPLER_TOKEN=", "dp.st." + r("Ab1c", 11), ""},
		{"doppler-token", "token ", "dp.pt." + r("Qz8y", 11), " ok"},
		{"digitalocean-token", "DIGITALOCEAN_TOKEN=", "dop_v1_" + r("0a1b2c3d", 8), ""},
		{"digitalocean-token", "token: ", "doo_v1_" + r("9f8e7d6c", 8), ""},
		{"shopify-token", "X-Shopify-Access-Token: ", "shpat_" + hex32, ""},
		{"shopify-token", "secret=", "shpss_" + r("9f8e7d6c", 4), ""},
		{"databricks-token", "DATABRICKS_TOKEN=", "dapi" + hex32, ""},
		{"databricks-token", "token ", "dapi" + r("9f8e7d6c", 4) + "-2", " ok"},
		{"age-secret-key", "# secret key: ", "AGE-SECRET-KEY-1" + r("QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L", 2)[:58], ""},
		{"age-secret-key", "", "AGE-SECRET-KEY-1" + r("GF2TVDW0S3JN54KHCE6MUA7LQPZRY9X8", 2)[:58], "\n"},
		{"jwt", "Cookie: session=", jwtTok, "; Path=/"},
		{"jwt", `{"id_token": "`, jwtTok, `"}`},
		{"bearer-token", "Authorization: Bearer ", r("Ab1.", 6), ""},
		{"bearer-token", `curl -H "authorization: bearer `, r("Zq9-Xy8_", 4), `" https://api.test/v1`},
		{"basic-auth", "Authorization: Basic ", base64.StdEncoding.EncodeToString([]byte("admin:" + pw)), ""},
		{"basic-auth", "curl -u admin:", pw, " https://api.test/v1"},
		{kindURLPassword, "git remote add origin https://deploy:", pw, "@git.internal.test/repo.git"},
		{kindURLPassword, `"ftp://u:`, pw, `@files.test/pub"`},
		{kindDatabasePassword, "DATABASE_URL=postgres://app:", pw, "@db:5432/app?sslmode=disable"},
		{kindDatabasePassword, `uri = "mongodb+srv://u:`, pw, `@cluster0.mongo.test/db"`},
		{kindDatabasePassword, "Server=tcp:db.test,1433;Database=app;User ID=sa;Password=", "my pass " + pw, ";Encrypt=true"},
		{kindDatabasePassword, "redis://:", pw, "@cache:6379/0"},
		{kindPassword, "DB_PASSWORD=", pw, "\n"},
		{kindPassword, `{"user": "bob", "password": "`, pw, `"}`},
		{kindPassword, "mysqldump --password=", pw, " app"},
		{kindPassword, "  password: ", pw, "\n"},
		{kindPassword, `db.connect(host="h", passwd='`, pw, `')`},
		{kindPassword, `dbPassword := "`, "hunter2", `"`},
		{kindPassword, "docker login --password ", pw, " --username bob"},
		{kindSecret, `client_secret: "`, "Abc123456789xyz", `"`},
		{kindSecret, "apiKey = '", "q8Zr2Lm5Np7", "'"},
		{kindSecret, "export AUTH_TOKEN=", "tok4Zq8Lm2Xy", ""},
		// ux F4: a quoted header, Authorization: token, passwords as short
		// flags, an AWS key after a space, session cookies.
		{kindSecret, "curl -H 'X-API-KEY: ", "9fK2mQ7xL4pR8sT1vW3yZ6bN", "' https://api.test"},
		{kindSecret, `{"cmd": "curl -H \"X-Api-Key: `, "q8Zr2Lm5Np7Wx3", `\" https://api.test"}`},
		{"bearer-token", "Authorization: token ", r("3f5a9c2e", 5), ""},
		{"bearer-token", `headers = {'Authorization': 'token `, r("8b7d1f4a", 5), `'}`},
		{kindPassword, "mysql -u root -p", pw, " -h db app"},
		{kindPassword, "mysqldump -uroot -p'", pw, "' app > dump.sql"},
		{kindPassword, "sshpass -p '", pw, "' ssh -p 2222 host"},
		{kindPassword, "sshpass -e -p", pw, " scp f host:"},
		{kindPassword, "docker login -u me -p ", pw, " ghcr.io"},
		{kindPassword, "cd x && podman login --username me -p", pw, ""},
		{"aws-secret-access-key", "aws configure set aws_secret_access_key ", r("Ab3/Cd4+", 5), ""},
		{kindSecret, "Cookie: theme=dark; session=", "q8Zr2Lm5Np7Wx3", "; lang=en"},
		{kindSecret, "curl -b 'sid=", "s%3Aq9Lx2Vb7Nm4Kp8", "; theme=dark' https://x"},
		{kindSecret, `{"Set-Cookie": "__Host-next-auth.session-token=`, "Ab1c" + r("Zq8x", 4), `; Secure"}`},
		// ux F22: a pasted terminal session; a value on the line after its key.
		{KindCommandOutput, "$ op read op://vault/db/password\n", "Zq8Wv3Lm9Np2", "\n$ psql -h db"},
		{KindCommandOutput, "  % printenv DATABASE_PASSWORD\n", "line one 9x\nline two", "\n\nlater text"},
		// ux F26 addendum: the output ends at a fence, a prompt or a heading.
		{KindCommandOutput, "```\n$ printenv DB_PASSWORD\n", "hunter2xyz", "\n```\nmore text"},
		{KindCommandOutput, "  ~~~sh\n  $ op read op://v/db/password\n", "  Zq8Wv3Lm9Np2", "\n  ~~~\nmore text"},
		{KindCommandOutput, "$ printenv DB_PASSWORD\n", "Zq8Wv3Lm9Np2", "\n> echo done\ndone"},
		{KindCommandOutput, "% printenv DB_PASSWORD\n", "Zq8Wv3Lm9Np2", "\n# whoami\nroot"},
		{KindCommandOutput, "$ printenv DB_PASSWORD\n", "Zq8Wv3Lm9Np2", "\n## Next steps\nrotate it"},
		{kindPassword, "$ cat .env\n# database\nDB_PASSWORD=", pw, "\n"}, // the comment ends the output; the assignment rule takes the value
		{kindPassword, "db:\n  password:\n    ", pw, "\n  user: app"},
		{kindPassword, "{\n  \"password\":\n    \"", pw, "\"\n}"},
		{kindPassword, "password: |\n  ", pw, "\n"},
		// ux F13: a note's credentials table, a key: value in an HTML comment.
		{kindPassword, "| service | user | password |\n|---|---|---|\n| github | dana | `", pw, "` |\n"},
		{kindPassword, "| key | value |\n|---|---|\n| password | ", pw, " |"},
		{kindSecret, "| API key | ", "q8Zr2Lm5Np7Wx3", " |"},
		{kindSecret, "<!-- token: ", "CoMmEnT8Wv3Lm9Np2Rt5Yx", " -->"},
		// ux F10: more providers, .netrc, .pgpass, a SAS signature, prose.
		{"openrouter-key", "use ", "sk-or-v1-" + r("3f5a9c2e", 8), " for openrouter"},
		{"openrouter-key", `OPENROUTER_API_KEY="`, "sk-or-v1-" + r("8b7d1f4a", 8), `"`},
		{"groq-key", "groq ", "gsk_" + r("Zq8W", 13), ""},
		{"groq-key", "GROQ_API_KEY=", "gsk_" + r("v3Lm", 13), "\n"},
		{"xai-key", "xai ", "xai-" + r("Zq8Wv3Lm9N", 8), ""},
		{"xai-key", `"apiKey": "`, "xai-" + r("p2Rt5Yx7Kc", 8), `"`},
		{"perplexity-key", "perplexity ", "pplx-" + r("3f5a9c2e", 6), ""},
		{"perplexity-key", "PPLX_API_KEY=", "pplx-" + r("Ab1c", 12), ""},
		{"replicate-token", "replicate ", "r8_" + r("Zq8W", 9) + "x", ""},
		{"replicate-token", "REPLICATE_API_TOKEN=", "r8_" + r("Lm9N", 9) + "y", ""},
		{"docker-hub-token", "docker hub ", "dckr_pat_" + r("Zq8Wv3Lm9", 3), ""},
		{"docker-hub-token", "docker login -u dana --password-stdin <<< ", "dckr_pat_" + r("Np2_Rt5-Y", 3), ""},
		{"grafana-token", "grafana ", "glsa_" + r("Zq8Wv3Lm", 4) + "_" + "3f5a9c2e", ""},
		{"grafana-token", "GRAFANA_TOKEN=", "glc_" + r("Ab1+Cd2/", 5) + "==", ""},
		{"tailscale-key", "tailscale up --authkey ", "tskey-auth-" + "kZq8Wv3CNTRL-" + r("Zq8W", 8), ""},
		{"tailscale-key", "TS_API_KEY=", "tskey-api-" + "k3f5a9c2e-" + r("Ab1c", 8), ""},
		{"notion-token", "notion ", "ntn_" + r("3f5a9c2e", 5) + "Zq8", ""},
		{"notion-token", "NOTION_TOKEN=", "ntn_" + r("Ab1cD", 9), ""},
		{"linear-key", "linear ", "lin_api_" + r("Zq8Wv3Lm", 5), ""},
		{"linear-key", "LINEAR_API_KEY=", "lin_api_" + r("9Np2Rt5Y", 5), ""},
		{"sentry-token", "sentry ", "sntrys_eyJ" + r("pYXQiOjE2", 5) + "_" + r("Zq8W", 8), ""},
		{"sentry-token", "SENTRY_AUTH_TOKEN=", "sntryu_" + r("3f5a9c2e", 8), ""},
		{"atlassian-token", "atlassian ", "ATATT3xFfGF0" + r("Zq8Wv3Lm9N", 6) + "=3F5A9C2E", ""},
		{"atlassian-token", "JIRA_API_TOKEN=", "ATATT3xFfGF0" + r("p2Rt5Yx7Kc", 6) + "=9B2D5F8A", ""},
		{kindPassword, "machine github.com login dana password ", pw, ""},
		{kindPassword, "machine api.test\n  login dana\n  password ", pw, "\n"},
		{kindPassword, "\"machine h.test login dana password ", pw, "\",\n"},
		{kindPassword, "the password is ", pw, "; rotate it"},
		{kindPassword, `"the password is `, pw, `\" ok"`},
		{kindSecret, "the token is \"", "Zq8Wv3Lm9Np2Rt5Yx7Kc", "\" until Friday"},
		{kindPassword, "db.example.com:5432:app:dana:", pw, "\n"},
		{"azure-storage-key", "https://acct.blob.core.windows.net/c?sv=2022-11-02&sig=", r("Zq8Wv3Lm", 4) + "%3D", "&se=x"},
		{kindSecret, "my API key is ", "Zq8Wv3Lm9Np2Rt5Yx7KcAbCd", ""},
		{kindSecret, "the token was ", "Zq8Wv3Lm9Np2Rt5Yx7Kc", " until Friday"},
		{kindSecret, "the token is ", "x9k2mq7z4w-rotated", ", ask ops"},         // digits interleaved: not a description
		{kindPassword, "the password is ", "Hunter42-salted", " (do not share)"}, // mixed case
		// ux F24: XML elements and key/value attributes, percent-encoded forms.
		{kindPassword, "<server><id>nexus</id><username>dana</username><password>", pw, "</password></server>"},
		{kindPassword, `<add key="ClearTextPassword" value="`, pw, `" />`},
		{kindSecret, `<add key="ApiKey" value="`, "q8Zr2Lm5Np7Wx3", `" />`},
		{kindSecret, `<entry key="api.token">`, "Zq8Wv3Lm9Np2Rt5Yx7Kc", "</entry>"},
		{kindSecret, "redirect=https%3A%2F%2Fx.com%2Fcb%3Faccess_token%3D", "Zq8Wv3Lm9Np2Rt5Yx7Kc", "%26x%3D1"},
		{kindDatabasePassword, "DSN=postgres%3A%2F%2Fapp%3A", "Zq8Wv3Lm9Np2", "%40db%2Fapp"},
		{kindURLPassword, "next=https%3A%2F%2Fdeploy%3A", "Zq8Wv3Lm9Np2", "%40git.test%2Fr"},
		{kindPrivateKey, "PuTTY-User-Key-File-3: ssh-rsa\nEncryption: none\nPublic-Lines: 1\nAAAAB3NzaC1yc2E\nPrivate-Lines: 2\n", r("AAAAgQCZ", 8) + "\n" + r("q8Wv3Lm9", 4), "\nPrivate-MAC: 3f5a9c2e"},
		{kindPassword, `password = """`, pw, `"""`},
		{kindHighEntropy, "SECRET_KEY_BASE=", r("9f8a7b6c5d4e3f2a1b0c", 3), ""},
		{kindHighEntropy, `signing_key_material: "`, r("Kq9+Lm8/Zx7=", 3), `"`},
	}...)
}

func TestRedactSecrets(t *testing.T) {
	for _, c := range secretCases() {
		got, counts := Redact(c.in())
		if got != c.want() {
			t.Errorf("%s: Redact(%q)\n got %q\nwant %q", c.kind, c.in(), got, c.want())
			continue
		}
		if strings.Contains(got, c.secret) {
			t.Errorf("%s: secret %q still in %q", c.kind, c.secret, got)
		}
		if counts[c.kind] != 1 || len(counts) != 1 {
			t.Errorf("%s: counts = %v, want {%s:1}", c.kind, counts, c.kind)
		}
	}
}

func TestKinds(t *testing.T) {
	kinds := Kinds()
	if len(kinds) < 24 || !sort.StringsAreSorted(kinds) {
		t.Fatalf("Kinds() = %v: want 24 or more, sorted", kinds)
	}
	per := map[string]int{}
	for _, c := range secretCases() {
		per[c.kind]++
	}
	for i, k := range kinds {
		if i > 0 && kinds[i-1] == k {
			t.Errorf("kind %q listed twice", k)
		}
		if per[k] < 2 {
			t.Errorf("kind %q has %d test cases, want 2 or more", k, per[k])
		}
		delete(per, k)
	}
	for k := range per {
		t.Errorf("test kind %q is not in Kinds()", k)
	}
}

// TestRedactKeeps lists text that looks like a secret and is not one.
func TestRedactKeeps(t *testing.T) {
	for _, s := range append(append(append(append(shapeKeeps, toolKeeps...), moreProviderKeeps...), nameValueKeeps...), // shapes_test.go, tools_test.go, providers_test.go, namevalue_test.go: ux U2-U5, U17, U21
		"commit 3f786850e387550fdab836ed7e6dc881de23001b (HEAD -> main)",
		"id: 123e4567-e89b-12d3-a456-426614174000",
		"sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
		"Reset your password in settings.",
		"Password: required",
		`password: ""`,
		`password: "<your-password>"`,
		"password: ***",
		"PASSWORD=changeme",
		"password: ${DB_PASSWORD}",
		"const password = process.env.DB_PASSWORD;",
		`password := os.Getenv("DB_PASSWORD")`,
		"password = newPassword",
		"Password: cfg.Password,",
		"conn = connect(user=user, password=get_password())",
		`secretName := "db-password"`,
		`tokenizer := NewTokenizer("bpe")`,
		`token := "EOF"`,
		"token_type: bearer",
		"password_file: /run/secrets/db",
		`{"private_key_id": "3f786850e387550fdab836ed7e6dc881de23001b"}`,
		"see https://example.com/docs?page=2#auth",
		"postgres://localhost:5432/app",
		"postgres://app:${DB_PASS}@db/app",
		"mysql://root:password@localhost/test",
		"Authorization: Bearer $TOKEN",
		"Authorization: Bearer <token>",
		"the bearer token goes in a header",
		"basic configuration lives in basic.yaml",
		"docker run -u 1000:1000 image",
		"pk_test_"+r("Ab1c", 6),
		"ghp_"+r("x", 36),
		"img: data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==",
		"PWD=/home/user/src/cairn",
		"go 1.26.8; v2.4.3; sk-learn",
		"mysql -u root -p mydb",
		`mysql -u root -p"$MYSQL_PWD" mydb`,
		"mysql -h db -P 3306 -p",
		"docker run -p 8080:80 nginx",
		"docker login -u me --password-stdin ghcr.io",
		"sshpass -f ~/.pw ssh -p 2222 host",
		"git checkout -b session-fix",
		"the aws_secret_access_key is stored in ~/.aws/credentials",
		`log.Printf("token: %s", tok)`,
		"fmt.Println('secret: required')",
		"Authorization: token $GITHUB_TOKEN",
		"Authorization: token <your-token>",
		"Cookie: theme=dark; _ga=GA1.2.3456789.1234567890",
		`document.cookie = "theme=dark; path=/"`,
		"set the session cookie (sid=...) on login",
		"$ cairn search deploy\ndocs/deploy.md:3-9 0.91",
		"$ cat README.md\n# Cairn\n\nlocal memory",
		"$ TOKEN=$(gh auth token) gh api /user\n{\"login\": \"dana\"}",
		"password:\n  required: true",
		"password:\n  - min length 12",
		"passwords:\n  rotate: weekly",
		"| pass | tool | p50 |\n|---|---|---:|\n| 1 | portbench | 2.71 / 24.11 |\n| 2 | lextail | 2.8 |",
		"| Option | Meaning |\n|---|---|\n| password | the user's password |\n| token | string |\n| Secret | Overview |\n| password | required |\n| api key | `<your-key>` |",
		"<!-- token: see below -->",
		"ls | grep token | wc -l",
		"the token is valid for 3600 seconds",
		"the API key is required; the token is in the vault",
		"the token is EXPIRED_OR_REVOKED",
		"machine github.com login dana password required",
		"12:30:45:00:1",
		"sig=short",
		"pipeline r8_stage and gsk_test",
		"tokenizer is BPE-50257-merges",
		`password = """"""`,
		"Python `password = \"\"\"v\"\"\"` (a stand-in)",
		"Private-Lines: none",
		"<password>required</password>",
		`<input name="password" value="">`,
		"<title>Secret</title><token>EOF</token>",
		`<add key="Theme" value="dark"/>`,
		"url=https%3A%2F%2Fx.com%2Fcb%3Fstate%3Dabc123XYZ",
		"<tokenizer>bpe</tokenizer><secretName>db-password</secretName>",
		// ux F26: code around a netrc line and a prose token; a badly cut value not spread.
		"\t\t\"machine github.com login dana password required\",\n\t\t\"Password: required\",",
		`write(t, "# Keys\n\nThe deploy token is "+secretToken+" and we decided to rotate it.\n")`,
		`msg := 'the password is '+userPassword+' for now'`,
		"f(\"machine h.test login u password missing);\")",
		`{"[store]\nurl = \"postgres://u@db/x?Password=secret\"\n", ":2: url holds a password"},`,
		"quoted header; `mysql -pV`, `sshpass -p V`, `docker login -p V`",
		// ux F26: a value that says what the token is like.
		"the token is base64url-encoded",
		"The token is base64-encoded and signed.",
		"the API key is sha256-hashed, the password is utf8-encoded",
		"the secret was x509-based",
	) {
		if got, counts := Redact(s); got != s {
			t.Errorf("Redact(%q) = %q (%v), want it unchanged", s, got, counts)
		}
	}
}

func TestCleanCorpus(t *testing.T) {
	files, err := filepath.Glob("testdata/clean/*.txt")
	if err != nil || len(files) == 0 {
		t.Fatalf("glob testdata/clean: %v (%d files)", err, len(files))
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		got, counts := Redact(string(b))
		if got == string(b) {
			continue
		}
		gl, wl := strings.Split(got, "\n"), strings.Split(string(b), "\n")
		for i := range wl {
			if i < len(gl) && gl[i] != wl[i] {
				t.Errorf("%s:%d: changed (%v)\n got %q\nwant %q", f, i+1, counts, gl[i], wl[i])
			}
		}
	}
}

func TestIdempotent(t *testing.T) {
	var all []string
	for _, c := range secretCases() {
		all = append(all, c.in())
	}
	inputs := append(all, strings.Join(all, "\n"), strings.Join(all, " "))
	for _, in := range inputs {
		once, _ := Redact(in)
		twice, counts := Redact(once)
		if twice != once || counts != nil {
			t.Errorf("not idempotent on %q:\n once %q\ntwice %q (%v)", in, once, twice, counts)
		}
	}
}

// TestJSONInJSON checks a JSON document carried as a string inside another
// JSON document (as tool output in a transcript): secrets behind escaped
// quotes are found and both levels stay valid JSON.
func TestJSONInJSON(t *testing.T) {
	inner, _ := json.Marshal(map[string]string{"password": pw, "token": "ghp_" + r("A1b2", 9), "user": "bob"})
	outer, _ := json.Marshal(map[string]string{"tool_output": string(inner)})
	twice, _ := json.Marshal(map[string]string{"wrapped": string(outer)})
	for _, doc := range []string{string(outer), string(twice)} {
		got, counts := Redact(doc)
		if strings.Contains(got, pw) || strings.Contains(got, "A1b2A1b2") {
			t.Fatalf("secret left in %s", got)
		}
		if counts[kindPassword] != 1 || counts["github-token"] != 1 {
			t.Errorf("counts = %v", counts)
		}
		var v any
		if err := json.Unmarshal([]byte(got), &v); err != nil {
			t.Fatalf("redacted JSON is invalid: %v\n%s", err, got)
		}
	}
	got, _ := Redact(string(outer))
	var m map[string]string
	_ = json.Unmarshal([]byte(got), &m)
	var in map[string]string
	if err := json.Unmarshal([]byte(m["tool_output"]), &in); err != nil {
		t.Fatalf("inner JSON invalid: %v: %s", err, m["tool_output"])
	}
	if in["password"] != Placeholder(kindPassword) || in["user"] != "bob" {
		t.Errorf("inner = %v", in)
	}
}

func FuzzRedact(f *testing.F) {
	for _, c := range secretCases() {
		f.Add(c.before, c.after)
	}
	files, _ := filepath.Glob("testdata/clean/*.txt")
	for _, p := range files {
		b, _ := os.ReadFile(p)
		f.Add(string(b[:min(len(b), 400)]), "")
	}
	planted := "ghp_" + r("P9q8", 9)
	f.Fuzz(func(t *testing.T, a, b string) {
		in := a + "\n" + planted + "\n" + b
		once, _ := Redact(in)
		if strings.Contains(once, planted) {
			t.Fatalf("planted token survived: %q", once)
		}
		twice, _ := Redact(once)
		if twice != once {
			t.Fatalf("not idempotent:\n once %q\ntwice %q", once, twice)
		}
		if r, _ := Redact(a); r != a {
			if again, _ := Redact(r); again != r {
				t.Fatalf("not idempotent on %q", a)
			}
		}
	})
}

// A secret that spans lines leaves its line breaks behind the placeholder,
// so line numbers into the redacted text still point at the same lines of
// the original (search hits name lines of the file on disk).
func TestRedactKeepsLineCount(t *testing.T) {
	multi := 0
	for _, c := range secretCases() {
		for _, in := range []string{c.in(), strings.ReplaceAll(c.in(), "\n", "\r\n")} {
			got, _ := Redact(in)
			if strings.Count(got, "\n") != strings.Count(in, "\n") {
				t.Errorf("%s: Redact(%q) = %q: %d line breaks, want %d", c.kind, in, got, strings.Count(got, "\n"), strings.Count(in, "\n"))
			}
		}
		if strings.Contains(c.secret, "\n") {
			multi++
		}
	}
	if multi < 3 {
		t.Fatalf("only %d cases span lines; the test needs private key blocks", multi)
	}
}
