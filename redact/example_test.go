package redact_test

import (
	"fmt"

	"github.com/cairnmemory/cairn/redact"
)

func ExampleRedact() {
	out, counts := redact.Redact(`export DB_PASSWORD=hunter2; psql postgres://app:s3cret@db/app`)
	fmt.Println(out)
	fmt.Println(counts["password"], counts["database-password"])
	// Output:
	// export DB_PASSWORD=[REDACTED:password]; psql postgres://app:[REDACTED:database-password]@db/app
	// 1 1
}
