package redact

// Name/value pairs and secret stores' command lines (ux U21, session
// 12-04c), part of secretCases and TestRedactKeeps.

func nameValueCases() []secretCase {
	return []secretCase{
		{kindPassword, "env: [{name: DB_PASSWORD, value: \"", pw, "\"}]"},
		{kindPassword, "env:\n  - name: DB_PASSWORD\n    value: \"", pw, "\"\n  - name: MODE\n    value: prod"},
		{kindPassword, "- name: DB_PASSWORD\n  value: ", pw, "\n"},
		{kindPassword, `{"name":"DB_PASSWORD","value":"`, pw, `"}`},
		{kindSecret, `"environment": [{"name": "API_TOKEN", "value": "`, "Zq8Wv3Lm9Np2Rt5Yx7Kc", `"}]`},
		{kindPassword, `[{"ParameterKey":"DBPassword","ParameterValue":"`, pw, `"}]`},
		{kindSecret, "aws ssm put-parameter --name /prod/db/password --value \"", pw, "\" --type SecureString"},
		{kindSecret, "gh secret set DB_PASSWORD --body \"", pw, "\""},
		{kindSecret, "echo \"", pw, "\" | docker secret create db_password -"},
		{kindSecret, "vercel env add DB_PASSWORD production <<< \"", pw, "\""},
		{kindSecret, "az keyvault secret set --vault-name kv --name db --value ", pw, ""},
		{kindSecret, "gcloud secrets create db --data-file=- <<< ", pw, ""},
		{kindPassword, `{"url":"https://x.io/login?user\u003ddana\u0026password\u003d`, pw, `\u0026next\u003d1"}`},
		{kindSecret, `"q":"api_key\u003d`, "Zq8Wv3Lm9Np2Rt5Yx7Kc", `"`},
	}
}

// nameValueKeeps are pairs whose name holds no secret, references and
// stand-ins.
var nameValueKeeps = []string{
	"env:\n  - name: MODE\n    value: production\n  - name: DB_PASSWORD\n    valueFrom:\n      secretKeyRef: {name: db, key: password}",
	`{"name":"LOG_LEVEL","value":"debug"}, {"name":"DB_PASSWORD","value":"${DB_PASSWORD}"}`,
	`[{"ParameterKey":"DBPasswordLength","ParameterValue":"32"}]`,
	"the default value: 42; name: x",
	`gh secret set DB_PASSWORD --body "$DB_PASSWORD"; gh secret set X < file`,
	"aws ssm put-parameter --name /app/mode --value prod-2",
	`{"u":"https://x.io/?password\u003d\u0026token\u003d${TOKEN}"}`,
}
