package redact

// Passwords in SQL and in the flags of common tools (ux U17, session
// 12-04c), part of secretCases and TestRedactKeeps.

func toolCases() []secretCase {
	return []secretCase{
		{kindPassword, `echo "`, pw, `" | sudo -S apt-get update`},
		{kindPassword, "openssl pkcs12 -export -in c.pem -out c.p12 -passout pass:", pw, ""},
		{kindPassword, "keytool -genkey -keystore ks.jks -storepass ", pw, " -alias app"},
		{kindPassword, "zip -P ", pw, " secrets.zip a.txt"},
		{kindPassword, "7z a -p", pw, " x.7z dir"},
		{kindPassword, "ldapsearch -x -D cn=admin -w ", pw, " -b dc=acme"},
		{kindPassword, "redis-cli -h cache -a ", pw, " ping"},
		{kindPassword, "smbclient //srv/share -U bob%", pw, ""},
		{kindPassword, "az login -u bob@acme.io -p ", pw, ""},
		{kindPassword, "sqlcmd -S db -U sa -P ", pw, ` -Q "select 1"`},
		{kindPassword, `mongosh "mongodb://db" -u admin -p `, pw, ""},
		{kindPassword, "ssh-keygen -p -P ", pw, " -f key"},
		{kindPassword, "htpasswd -b .htpasswd bob ", pw, ""},
		{kindPassword, "rabbitmqctl add_user bob ", pw, ""},
		{kindPassword, "xfreerdp /u:bob /p:", pw, " /v:host"},
		{kindPassword, `net use \\srv\share /user:bob `, pw, ""},
		{kindPassword, "nmcli dev wifi connect ACME password ", pw, ""},
		{kindPassword, "wpa_passphrase ACME ", pw, ""},
		{kindPassword, "ansible-vault decrypt --vault-password-file <(echo ", pw, ") x.yml"},
		{kindPassword, `ConvertTo-SecureString "`, pw, `" -AsPlainText -Force`},
		{kindPassword, "ALTER USER app WITH PASSWORD '", pw, "';"},
		{kindPassword, "create role app login encrypted password '", pw, "';"},
		{kindPassword, "CREATE USER bob IDENTIFIED BY '", pw, "';"},
		{kindPassword, "GRANT ALL ON *.* TO 'bob'@'%' IDENTIFIED BY '", pw, "';"},
		{kindPassword, "SET PASSWORD FOR bob = PASSWORD('", pw, "');"},
		{kindPassword, "pw: ", pw, ""},
		{kindPassword, "PW=", pw, ""},
	}
}

// toolKeeps are tool and SQL lines without a password, and prose.
var toolKeeps = []string{
	"sudo -S true; echo done | sudo tee /etc/x",
	`zip -P "$ZIP_PASS" x.zip a; redis-cli -a "$REDIS_PASSWORD" ping`,
	"7z a -p archive.7z dir",
	`ssh-keygen -t ed25519 -N "" -f key; ssh-keygen -N ''`,
	"ldapsearch -x -W -b dc=acme; ldapsearch -w $PW",
	"htpasswd -b /etc/nginx/.htpasswd user password",
	"Removes the directory identified by path. The header identified by name is set.",
	"the user identified by uid 1000 owns it",
	"ALTER ROLE app PASSWORD NULL; CREATE USER bob IDENTIFIED BY $1;",
	"openssl pkcs12 -in key.p12 -passin pass:notasecret -out key.pem -nodes",
	"keytool -storepass:env STOREPASS -list",
	"the pw is short; npw: 3",
}
