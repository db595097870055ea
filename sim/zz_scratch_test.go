package sim

import (
	"fmt"
	"os"
	"testing"
)

func TestZZScratch(t *testing.T) {
	src, _ := os.ReadFile(os.Getenv("SCR"))
	l, err := Load("x.yaml", src)
	fmt.Printf("err:\n%v\n", err)
	if l != nil {
		fmt.Printf("%+v\n", *l)
	}
}
