// Package redact replaces secrets in text with typed placeholders before the
// text is stored or sent to a model.
//
// Quick start:
//
//	clean, counts := redact.Redact(transcript)
//	// "export DB_PASSWORD=hunter2" becomes "export DB_PASSWORD=[REDACTED:password]"
//	for kind, n := range counts { ... } // kind is one of redact.Kinds()
//
// Each secret becomes [REDACTED:<kind>]. Only the secret is replaced: the
// quotes around a value, the key it is assigned to, the user and host of a
// URL all stay, so JSON, YAML and code keep their structure. Redact is
// idempotent: a placeholder is never matched again.
//
// # Kinds
//
// Example shapes below are synthetic: <n alnum> means n letters and digits.
//
//	kind                   example shape
//	---------------------  -------------------------------------------------------------
//	private-key            -----BEGIN (RSA|EC|OPENSSH|DSA|ENCRYPTED|PGP) PRIVATE KEY( BLOCK)?----- ... -----END ...-----
//	                       (the whole block, its line breaks kept; an unterminated block up to its last base64 line);
//	                       a PuTTY key's Private-Lines: N block
//	gcp-service-account    "private_key": "-----BEGIN PRIVATE KEY-----\n...\n-----END PRIVATE KEY-----\n"
//	openai-key             sk-proj-<20+ chars>, sk-svcacct-..., sk-<32+ alnum>
//	anthropic-key          sk-ant-api03-<20+ chars>
//	google-api-key         AIza<35 chars>
//	google-oauth-token     ya29.<20+ chars>, GOCSPX-<28 chars>
//	aws-access-key-id      AKIA<16 A-Z0-9>, ASIA..., ABIA..., ACCA...
//	aws-secret-access-key  aws_secret_access_key = <40 base64>, "SecretAccessKey": "<40>",
//	                       aws_secret_access_key <40> (aws configure set); <40> beside its
//	                       access key id: AKIA... / <40>, AKIA...:<40>, AKIA...,<40>, the next line
//	azure-storage-key      AccountKey=<base64>==, SharedAccessKey=<base64>, a SAS URL's sig=<v>
//	github-token           ghp_<36 alnum> (also gho_, ghu_, ghs_, ghr_), github_pat_<22+>
//	gitlab-token           glpat-<20+ chars> (also gldt-, glptt-, glrt-, ...)
//	slack-token            xoxb-<digits>-<digits>-<alnum> (also xoxp-, xoxa-, xoxr-, ...), xapp-1-...
//	slack-webhook          https://hooks.slack.com/services/T<id>/B<id>/<secret> (whole URL)
//	discord-webhook        https://discord.com/api/webhooks/<id>/<secret> (whole URL)
//	discord-bot-token      M<23-25>.<6>.<27-38> (on lines that mention Discord or call .run()
//	telegram-bot-token     <8-10 digits>:AA<33 chars>
//	stripe-key             sk_live_<16+>, sk_test_, rk_live_, rk_test_, pk_live_, whsec_<24+>
//	sendgrid-key           SG.<22>.<43>
//	twilio-api-key         SK<32 hex>
//	twilio-auth-token      TWILIO_AUTH_TOKEN=<32 hex>; "AC<32 hex>", "<32 hex>" (the token, not the SID)
//	npm-token              npm_<36 alnum>; //registry.npmjs.org/:_authToken=<value>
//	pypi-token             pypi-AgE<50+ chars>
//	huggingface-token      hf_<34+ alnum>
//	vault-token            hvs.<24+>, hvb., hvr.
//	doppler-token          dp.st.<40+>, dp.pt., dp.sa., dp.ct., ...
//	digitalocean-token     dop_v1_<64 hex>, doo_v1_, dor_v1_
//	shopify-token          shpat_<32 hex>, shpss_, shpca_, shppa_
//	databricks-token       dapi<32 hex>
//	age-secret-key         AGE-SECRET-KEY-1<58 bech32>
//	openrouter-key         sk-or-v1-<64 hex>
//	groq-key               gsk_<48+ alnum>
//	xai-key                xai-<70+ alnum>
//	perplexity-key         pplx-<40+ alnum>
//	replicate-token        r8_<32+ alnum>
//	docker-hub-token       dckr_pat_<27+>, dckr_oat_
//	grafana-token          glsa_<32>_<8 hex>, glc_<32+ base64>
//	tailscale-key          tskey-(auth|api|client|scim|webhook)-<id>-<secret>
//	notion-token           ntn_<40+ alnum>
//	linear-key             lin_api_<40+ alnum>, lin_oauth_
//	sentry-token           sntrys_eyJ<...>, sntryu_<64 hex>
//	atlassian-token        ATATT3<50+>, ATCTT3
//	pinecone-key           pcsk_<4-12>_<40+ alnum>
//	langsmith-key          lsv2_pt_<32 hex>_<10 hex>, lsv2_sk_
//	planetscale-token      pscale_tkn_<32+>, pscale_oauth_, pscale_pw_
//	figma-token            figd_<40+>
//	postman-key            PMAK-<24 hex>-<34 hex>
//	pulumi-token           pul-<40 hex>
//	newrelic-key           NRAK-<27 A-Z0-9>, NRII-<32>
//	terraform-token        <14 alnum>.atlasv1.<60-70>
//	flyio-token            fo1_<40+>, FlyV1 fm2_<40+> (the token after "FlyV1 ")
//	onepassword-token      ops_eyJ<40+ base64>
//	(ux's U2 addendum)     mapbox-token sk.eyJ..., square-token sq0atp-/sq0csp-, dropbox-token
//	                       sl.<130+>, heroku-key HRKU-, netlify-token nfp_, render-key rnd_,
//	                       buildkite-token bkua_, bitbucket-token ATBB, contentful-token CFPAT-,
//	                       supabase-token sbp_/sb_secret_, circleci-token CCIPAT_, facebook-token
//	                       EAA<100+>, shippo-token shippo_live_, easypost-key EZAK/EZTK,
//	                       clickup-token pk_<digits>_<32>, typeform-token tfp_, deno-token ddp_/ddw_,
//	                       firecrawl-key fc-<32 hex>, tavily-key tvly-, fireworks-key fw_, resend-key
//	                       re_<8>_<24>, neon-key napi_, e2b-key e2b_, browserbase-key bb_live_,
//	                       mongodb-atlas-key mdb_sa_sk_; google-oauth-token also 1//0... (a refresh
//	                       token); none of these after a byte of base64 ("sha256=qaN-fw_...")
//	seed-phrase            12, 15, 18, 21 or 24 words of 3-8 small letters under a mnemonic or
//	                       seed-named key (WALLET_MNEMONIC="...", seed_phrase: ...) or after
//	                       "recovery|seed|backup phrase is"; fewer than 6 distinct words stay
//	password-hash          user:<hash> (htpasswd, shadow): $apr1$, $1$, $5$, $6$, $2a/b/y$, $y$, {SHA}
//	command-output         the output of a tool call or a pasted "$ <cmd>" that fetches a
//	                       secret (op read, vault kv get, cat ~/.config/cairn/token; FetchesSecret);
//	                       pasted output ends at a blank line, the next prompt ($ % > #),
//	                       a code fence or a Markdown heading, which are kept
//	jwt                    eyJ<header>.eyJ<payload>.<signature>
//	bearer-token           Authorization: Bearer <16+ token chars> (the token);
//	                       Authorization: token <16+> (GitHub's form)
//	basic-auth             Authorization: Basic <base64 of user:pass>; curl -u user:pass (the password)
//	url-password           https://user:<password>@host (user and host kept)
//	database-password      postgres|mysql|mongodb(+srv)|redis|amqp|...://user:<password>@host;
//	                       Server=...;User ID=...;Password=<value>; (ADO-style)
//	password               password|passwd|pwd|pass|passphrase-named key = or : <value>
//	                       (also on the next line: YAML, pretty JSON; a Markdown table cell
//	                       beside or under a password cell; .netrc, .pgpass lines; XML:
//	                       <password>v</password>, <add key="ClearTextPassword" value="v"/>;
//	                       percent-encoded: key%3Dvalue, scheme%3A%2F%2Fuser%3Apassword%40host;
//	                       JSON-escaped: key\u003dvalue)
//	                       in code, JSON, YAML, env files, ini, query strings, --password=x, --password x;
//	                       in prose: password|passphrase|passwd|pwd|passcode is|was|:|= <value> when
//	                       the value is secret-shaped (hunter2, 'swordfish', Summer2024!; not "in",
//	                       "required"); also in German, French, Spanish, Portuguese, Italian, Dutch,
//	                       Polish, Czech, Swedish, Norwegian, Danish, Finnish, Russian, Turkish,
//	                       Chinese, Japanese, Korean ("das Passwort ist", "le mot de passe est",
//	                       "la contraseña:", "密码是"); a PIN after "PIN is|:" (4-8 digits);
//	                       wifi: <network> / <value>;
//	                       mysql (mysqldump, mariadb, ...) -p<value>; sshpass -p <value>;
//	                       docker|podman|nerdctl|buildah|skopeo|oras|helm registry login ... -p <value>;
//	                       SQL: CREATE|ALTER USER|ROLE ... PASSWORD '<v>', ... IDENTIFIED BY '<v>',
//	                       SET PASSWORD ... = '<v>'; tool flags: echo <v> | sudo -S, openssl pass:<v>,
//	                       keytool -storepass <v>, zip -P, 7z -p<v>, ldapsearch -w, redis-cli -a,
//	                       smbclient -U u%<v>, az login -p, sqlcmd -P, mongosh -p, ssh-keygen -P|-N,
//	                       htpasswd -b f u <v>, rabbitmqctl add_user u <v>, xfreerdp /p:<v>,
//	                       net use /user:u <v>, nmcli ... password <v>, wpa_passphrase ssid <v>,
//	                       ConvertTo-SecureString "<v>" -AsPlainText, <(echo <v>) (tools.go); pw: <v>;
//	                       a name/value pair whose name is password-named: - name: DB_PASSWORD /
//	                       value: <v>, {"name": ..., "value": <v>}, ParameterKey/ParameterValue
//	                       (namevalue.go)
//	secret                 secret|token|api_key|apikey|access_key|client_secret|auth|credentials-named
//	                       key with a credential-shaped value (8+ chars, letters with digits or mixed case);
//	                       in prose: "my API key is <v>", "the token was <v>" (12+ chars, not words),
//	                       also inside quotes as a header: curl -H 'X-Api-Key: <value>';
//	                       a session cookie's value (Cookie:, Set-Cookie:, curl -b/--cookie:
//	                       session, sid, PHPSESSID, connect.sid, *_session, auth_token, ...);
//	                       a secret-named name/value pair; a value handed to a secret store:
//	                       gh secret set X --body <v>, az keyvault secret set --value <v>, aws ssm
//	                       put-parameter ... SecureString --value <v>, echo <v> | docker secret
//	                       create, vercel env add ... <<< <v>, gcloud secrets create ... <<< <v>
//	high-entropy-secret    a key that mentions a secret word (SECRET_KEY_BASE, signing_key_material)
//	                       holding 20+ chars of Shannon entropy >= 3.5 bits per byte
//
// # What is left alone
//
// Git SHAs, UUIDs, hex digests and base64 data are not redacted unless
// assigned to a secret-named key; prose that mentions passwords; file paths;
// URLs without a password; identifiers that contain a secret word
// (tokenizer, passwordField). A name is classified by its last part:
// db_password and dbPassword hold a password, password_file and
// secretName name one (secretName := "db-password" is kept), and
// private_key_id, token_type and token_hash describe one.
//
// Values that stand in for a secret are kept: "", masks (***, xxxx),
// variables and templates (${DB_PASSWORD}, $TOKEN, {{ .Token }},
// process.env.X, os.Getenv("X")), <your-token> and other your-key-here
// stand-ins, the words password, secret, none, null, and changeme and
// notasecret (known defaults, the second of Google's .p12 keys, not
// secrets; redacting them protects nothing). Stripe publishable
// test keys (pk_test_) are public and kept; secret and restricted test keys
// (sk_test_, rk_test_) grant API access and are redacted.
//
// A value in a provider's fixed shape (AKIA<16>, ghp_<36>, AIza<35>, a
// 40-character AWS secret key, ...) is kept only when it is a mask
// (ghp_xxxx..., runs of * or 0) or holds "example", "your", "redacted" or
// "placeholder" as a word of its own, between its ends, '-', '_' or '.'
// (sk-proj-your-key-here-...). Letters inside a key do not exempt it: AWS's
// documented sample AKIAIOSFODNN7EXAMPLE is redacted, since a user who
// tries the redaction pastes that sample, and a real random key can hold
// the same letters. Values of open-ended shape (a bearer token, an Azure
// key) that contain those words anywhere are kept as stand-ins.
//
// An invisible character inside a token (a zero-width space, joiner or
// non-joiner, a word joiner, a soft hyphen, a byte-order mark, a direction
// mark) does not hide it: a line holding one between two printable ASCII
// bytes is tried without them, and when that hides more, the line is
// redacted so, its invisible characters between ASCII bytes dropped
// (hidden.go). Other lines keep theirs: the joiners of an emoji sequence,
// the soft hyphens of a word.
//
// A token in a provider's shape starts at a boundary: the start of the
// text, a byte that is not a letter, digit or '_', a JSON escape (\n), or
// the end of an ANSI colour code, with its ESC byte or without it
// ("\x1b[01;31m\x1b[Kghp_...", "[01;31m[Kghp_...": grep --color output).
// The most distinctive prefixes (gh?_, github_pat_, sk-ant-, gl*-, xox?-,
// xapp-, AIza, AKIA and its kin) are also taken glued to a word
// ("tokenghp_..."), but then only when the rest mixes digits, capitals and
// small letters as a random key does (AKIA: holds a digit), so an
// identifier such as highs_getAllValuesForCurrentUserWithPagination stays.
// Shorter or commoner prefixes (sk-, sk_live_, hf_, npm_) need a boundary:
// disk-<32 hex> is a disk id, not an OpenAI key.
//
// Bare values in code are not secrets: password = newPassword,
// password: cfg.Password, password=get_password(). A bare value after a
// colon counts only as a YAML scalar alone on its line, and then (like a
// flag value after a space) only if it is not a plain word, so
// "Password: required" in prose stays. In a sentence ("the password is
// hunter2", "Password: Tr0ub4dor-q7Z for staging") the value after the
// password word is taken when quoted as one token, or when bare and not
// made of words and numbers alone: "the password is in the vault",
// "password is required", "password: 12-character minimum" and
// "password is hunter-2" stay (prose.go), and so does a bare value that
// describes the secret, lower-case terms ending in a participle: "the
// token is base64url-encoded", "the API key is sha256-hashed".
//
// # Repeats
//
// A value a rule replaced is also replaced where the same text (or, through
// RedactParts, another part of the same document: a chat session's turns)
// repeats it bare, before or after, with the same kind: after "the password
// is hunter2", "I will not repeat hunter2" becomes "I will not repeat
// [REDACTED:password]". Only values of six or more characters that hold a
// digit or a symbol are looked for, as whole tokens (not in xhunter2 or
// hunter22); a value of letters or words alone (swordfish, read-only), also
// inside punctuation (required!), is kept elsewhere, since the same word is
// more often just the word, and a value ending in a quote or in .,;:)]} is
// not spread (repeat.go).
//
// # Cost
//
// Every rule has anchor strings (a key prefix, a keyword); a rule's regular
// expression runs only on the lines that hold one of its anchors, so text
// without candidates costs a few substring scans. See BenchmarkRedact.
package redact
