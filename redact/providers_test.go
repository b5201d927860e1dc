package redact

// Tokens of ux's U2 addendum (session 12-04c), each in two places; part of
// secretCases. Built from fixed fragments.

func moreProviderCases() []secretCase {
	samples := []struct{ kind, token string }{
		{"mapbox-token", "sk.eyJ1IjoiYWNtZSIsImEiOiJ" + r("Zq8Wv3Lm9N", 4)},
		{"square-token", "sq0atp-" + r("Ab1-c_D2", 3)},
		{"square-token", "sq0csp-" + r("Zq8Wv3Lm9N", 5)},
		{"dropbox-token", "sl." + r("Ab1cD2-_Zq", 14)},
		{"heroku-key", "HRKU-" + r("Zq8Wv3Lm9N", 6)},
		{"netlify-token", "nfp_" + r("a7FQoBuHAz", 4)},
		{"render-key", "rnd_" + r("HJr5Fjti", 4)},
		{"buildkite-token", "bkua_" + r("7f15b210", 5)},
		{"bitbucket-token", "ATBB" + r("DHK4Gq70", 4)},
		{"contentful-token", "CFPAT-" + r("1GmJsUiXam", 4) + "4jt"},
		{"supabase-token", "sbp_" + r("e86a2ef2", 5)},
		{"supabase-token", "sb_secret_" + r("Zq8Wv3Lm9N", 3)},
		{"circleci-token", "CCIPAT_" + r("JtZ40HNf", 6)},
		{"google-oauth-token", "1//0" + r("yqKfidcm", 8)},
		{"facebook-token", "EAAB" + r("iNOQ5PROK8", 11)},
		{"shippo-token", "shippo_live_" + r("057afc25", 5)},
		{"easypost-key", "EZAK" + r("W5m7JyTx1e", 5) + "78gM"},
		{"clickup-token", "pk_70707724_" + r("E3F64IXN", 4)},
		{"typeform-token", "tfp_" + r("RfsqWQD5di", 4) + "H7"},
		{"deno-token", "ddp_" + r("jgaMfmqd", 4) + "EArx"},
		{"firecrawl-key", "fc-" + r("75b4f500", 4)},
		{"tavily-key", "tvly-" + r("UNzhVnRW", 4)},
		{"fireworks-key", "fw_" + r("4rq4hULD", 3)},
		{"resend-key", "re_" + "IGtedq5f" + "_" + r("SobvczfjSWUw", 2)},
		{"neon-key", "napi_" + r("vv8itTY7te", 6) + "s3mE"},
		{"e2b-key", "e2b_" + r("1ea091ba", 5)},
		{"browserbase-key", "bb_live_" + r("jTAJBW6T", 4)},
		{"mongodb-atlas-key", "mdb_sa_sk_" + r("vsWb2VBG", 5)},
	}
	var out []secretCase
	seen := map[string]bool{}
	for _, s := range samples {
		out = append(out, secretCase{s.kind, "here is the key ", s.token, " for you"})
		if !seen[s.kind] {
			out = append(out, secretCase{s.kind, `API_TOKEN="`, s.token, `"`})
		}
		seen[s.kind] = true
	}
	return out
}

// moreProviderKeeps hold the prefixes without a token.
var moreProviderKeeps = []string{
	"ssl.cert and sl.check, pk_test and pk_12_ab, re_compile(x), fc-cache -f, fw_update",
	"EAAAC and HRKU-12, nfp_x and rnd_seed, bkua_ and ATBB? CFPAT- and sbp_1",
	"pathname, patterns and pat.t",
	"pip/_vendor/platformdirs/version.py,sha256=qaN-fw_" + r("Zq8Wv3Lm", 5) + ",160",
}
