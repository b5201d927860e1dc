package redact

import (
	"strings"
	"testing"
)

// More shapes of secrets (ux U2-U5, session 12-04c), part of secretCases
// and TestRedactKeeps. The secrets are built from fixed fragments.

// seedWords is a made-up 12-word phrase (8 distinct words).
var seedWords = "abandon ripple tiger tiger canvas oxygen sketch sketch pumpkin canvas canvas zebra"

func shapeCases() []secretCase {
	return []secretCase{
		// U2: bare tokens of ten more providers.
		{"pinecone-key", "pinecone: ", "pcsk_" + "Zq8Wv3" + "_" + r("Ab1cD2", 10), ""},
		{"pinecone-key", `Pinecone(api_key="`, "pcsk_" + "3f5a9" + "_" + r("Lm9Np2Rt", 6), `")`},
		{"langsmith-key", "LangSmith key ", "lsv2_pt_" + r("3f5a9c2e", 4) + "_" + "9c2c943eb6", ""},
		{"langsmith-key", "LANGSMITH_API_KEY=", "lsv2_sk_" + r("8b7d1f4a", 4) + "_" + "0a1b2c3d4e", "\n"},
		{"planetscale-token", "connect with ", "pscale_tkn_" + r("Zq8Wv3Lm9N", 4) + "x1Y", "."},
		{"planetscale-token", "password: ", "pscale_pw_" + r("Ab1c_D2", 6), ""},
		{"figma-token", "figma token ", "figd_" + r("Zq8Wv3Lm9N", 4), ""},
		{"figma-token", `"X-Figma-Token": "`, "figd_" + r("Ab1-c_D2", 5), `"`},
		{"postman-key", "postman: ", "PMAK-" + r("3f5a9c2e", 3) + "-" + r("0a1b2c3d4e", 3) + "9f8e", ""},
		{"postman-key", "x-api-key: ", "PMAK-" + r("8b7d1f4a", 3) + "-" + r("5e6f7a8b9c", 3) + "0d1e", ""},
		{"pulumi-token", "pulumi login with ", "pul-" + r("3f5a9c2e", 5), ""},
		{"pulumi-token", "PULUMI_ACCESS_TOKEN=", "pul-" + r("9f8e7d6c", 5), ""},
		{"newrelic-key", "NR key ", "NRAK-" + r("GR143", 5) + "CV", ""},
		{"newrelic-key", "insert key ", "NRII-" + r("Zq8W-v3_", 4), ""},
		{"terraform-token", "TFC token ", "9zBBzbEePmnU3w" + ".atlasv1." + r("N8JFNWLdM8", 6) + "mHa8PU6", ""},
		{"terraform-token", `token = "`, "Ab12Cd34Ef56Gh" + ".atlasv1." + r("Zq8Wv3Lm9-", 6) + "_x=", `"`},
		{"flyio-token", "fly deploy token ", "fo1_" + r("Zq8Wv3Lm9N", 4) + "p2R", ""},
		{"flyio-token", "FLY_API_TOKEN=\"FlyV1 ", "fm2_" + r("lJPECAAAAAAA", 5) + "+/x=", `"`},
		{"onepassword-token", "OP token ", "ops_eyJ" + r("zaWduSW5BZGRyZXNz", 4), ""},
		{"onepassword-token", "OP_SERVICE_ACCOUNT_TOKEN=", "ops_eyJ" + r("c2lnbkluQWRk+/", 5) + "==", ""},
		// U3: the secret access key beside its (redacted) access key id.
		{"aws-secret-access-key", "aws creds: [REDACTED:aws-access-key-id] / ", r("Ab3/Cd4+", 5), ""},
		{"aws-secret-access-key", "[REDACTED:aws-access-key-id]:", r("Zy8+Xw7/", 5), "\n"},
		{"aws-secret-access-key", "dana,,[REDACTED:aws-access-key-id],", r("Qr5+St6/", 5), ",https://console"},
		{"aws-secret-access-key", "key id [REDACTED:aws-access-key-id]\n  ", r("Lm2/Np3+", 5), "\n"},
		// U4: a seed phrase under a mnemonic or seed-named key.
		{kindSeedPhrase, `WALLET_MNEMONIC="`, seedWords, `"`},
		{kindSeedPhrase, "seed_phrase: ", seedWords + " " + seedWords, "\n"},
		{kindSeedPhrase, `{"mnemonic": "`, seedWords, `"}`},
		{kindSeedPhrase, "my recovery phrase is ", seedWords, "."},
		{kindSeedPhrase, "SEED=", strings.Replace(seedWords, "zebra", "ladder orbit lemon zone", 1), ""},
		// U5: password prose in other languages, passcode, an htpasswd hash, a PIN.
		{kindPassword, "Das Passwort ist ", pw, " für den Server."},
		{kindPassword, "WLAN-Passwort: ", pw, ""},
		{kindPassword, "das Kennwort lautet ", pw, ""},
		{kindPassword, "Le mot de passe est ", pw, ""},
		{kindPassword, "La contraseña: ", pw, ""},
		{kindPassword, "la contraseña es ", pw, " para el servidor"},
		{kindPassword, "A senha é ", pw, ""},
		{kindPassword, "la password è ", pw, ""},
		{kindPassword, "Het wachtwoord is ", pw, ""},
		{kindPassword, "Hasło to ", pw, ""},
		{kindPassword, "пароль: ", pw, ""},
		{kindPassword, "密码是", pw, "，请保管好"},
		{kindPassword, "パスワード：", pw, ""},
		{kindPassword, "passcode: ", pw, ""},
		{kindPassword, "the passcode is ", pw, " for the door"},
		{kindPassword, "DOOR_PASSCODE=", pw, ""},
		{kindPassword, "db_passwort = '", pw, "'"},
		{kindPassword, "The door PIN is ", "847148", "."},
		{kindPassword, "SIM PIN: ", "2580", ""},
		{kindPassword, "wifi: ACME-Guest / ", pw, ""},
		{kindPassword, "- WLAN (Büro): Office5G / ", pw, "."},
		{kindPasswordHash, "admin:", "$apr1$" + "Ab12Cd34" + "$" + r("Zq8W", 5) + "x.", ""},
		{kindPasswordHash, "dana:", "$2y$10$" + r("Ab1./Cd2", 6) + "Zq8Wv", "\n"},
		{kindPasswordHash, "root:", "$6$" + "Zq8Wv3Lm" + "$" + r("Ab1./Cd2", 10) + "Zq8Wv3", ":19000:0:99999:7:::"},
	}
}

// shapeKeeps look like U2-U5's secrets and are not.
var shapeKeeps = []string{
	// U2
	"pcsk_short and pul-deadbeef and NRAK-123 and figd_x",
	"see https://app.terraform.io/app/settings/tokens for atlasv1 tokens",
	// U3: a git SHA after a redacted id, an id alone.
	"[REDACTED:aws-access-key-id] 3f786850e387550fdab836ed7e6dc881de23001b",
	"[REDACTED:aws-access-key-id] / arn:aws:iam::123456789012:user/dana",
	// U4
	"seed = 42",
	`"seed": "the quick brown fox"`,
	`mnemonic: "test test test test test test test test test test test junk"`,
	"random seed: 12345, seed phrase: see the vault",
	"the recovery phrase is written on paper in the safe",
	"mnemonic devices help people remember lists of words like these ones here and more",
	// U5
	"Das Passwort ist im Tresor.",
	"Das Passwort ist falsch",
	"Le mot de passe est incorrect.",
	"La contraseña es obligatoria",
	"Passwortänderung ist Pflicht",
	"the passcode is 6 digits long",
	"GPIO PIN 17 is the LED, PIN: 13",
	"The PIN is 4 digits; PIN: 2024-05-01",
	"PIN: 0000",
	"admin:$apr1$salt$hash",
	"see man 5 shadow: root:$6$salt$hash:19000",
	"echo $1$2",
	"wifi: on / off, wlan: 2.4GHz / 5GHz",
	"Wi-Fi: home / guest-network",
}

// TestRedactAWSKeyPair: the secret access key pasted beside its access key
// id is replaced with it (ux U3).
func TestRedactAWSKeyPair(t *testing.T) {
	id, secret := "AKIA"+"ABCDEFGH23456789", r("Ab3/Cd4+", 5)
	idP, secP := Placeholder("aws-access-key-id"), Placeholder("aws-secret-access-key")
	for _, tc := range []struct{ in, want string }{
		{"aws creds: " + id + " / " + secret, "aws creds: " + idP + " / " + secP},
		{id + ":" + secret, idP + ":" + secP},
		{"Access key ID,Secret access key\n" + id + "," + secret + "\n", "Access key ID,Secret access key\n" + idP + "," + secP + "\n"},
		{"id " + id + "\nsecret\n", "id " + idP + "\nsecret\n"},
		{"`" + id + "`\n`" + secret + "`", "`" + idP + "`\n`" + secP + "`"},
	} {
		got, counts := Redact(tc.in)
		if got != tc.want {
			t.Errorf("Redact(%q)\n got %q\nwant %q", tc.in, got, tc.want)
		}
		if strings.Contains(tc.want, secP) && counts["aws-secret-access-key"] != 1 {
			t.Errorf("Redact(%q): counts %v", tc.in, counts)
		}
	}
}
