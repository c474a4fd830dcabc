// kube-validate reads rendered Kubernetes manifests (files, or stdin) and checks every document
// against the official API types of k8s.io/api: decoded strictly (an unknown or duplicated field is
// an error, as `kubectl apply --validate=strict` makes it), then the checks apimachinery offers
// (names, labels, selectors, ports, env names) and the references between the objects (a
// Service's pods, a probe's port, an HPA's target, a Secret a pod reads). Exits 1 naming each
// problem by file, document and field path.
package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	policyv1 "k8s.io/api/policy/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer/json"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
)

// document is one decoded object and where it came from.
type document struct {
	source string
	object runtime.Object
}

func (d document) String() string { return d.source }

func newDecoder() runtime.Decoder {
	scheme := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{
		corev1.AddToScheme, appsv1.AddToScheme, autoscalingv2.AddToScheme, policyv1.AddToScheme,
		batchv1.AddToScheme, networkingv1.AddToScheme, rbacv1.AddToScheme,
	} {
		if err := add(scheme); err != nil {
			panic(err)
		}
	}
	return json.NewSerializerWithOptions(json.DefaultMetaFactory, scheme, scheme,
		json.SerializerOptions{Yaml: true, Strict: true})
}

// readDocuments splits a YAML stream at its `---` lines and decodes each non-empty document.
func readDocuments(name string, in io.Reader, decoder runtime.Decoder) ([]document, []string) {
	reader := utilyaml.NewYAMLReader(bufio.NewReader(in))
	var docs []document
	var problems []string
	for index := 1; ; index++ {
		raw, err := reader.Read()
		if errors.Is(err, io.EOF) {
			return docs, problems
		}
		source := fmt.Sprintf("%s, document %d", name, index)
		if err != nil {
			return docs, append(problems, fmt.Sprintf("%s: %v", source, err))
		}
		if isBlank(raw) {
			continue
		}
		object, gvk, err := decoder.Decode(raw, nil, nil)
		if gvk != nil && gvk.Kind != "" {
			source = fmt.Sprintf("%s (%s)", source, gvk.Kind)
		}
		if err != nil {
			problems = append(problems, fmt.Sprintf("%s: %v", source, err))
		}
		// A strict decoding error still decodes the rest: its references are checked too.
		if err == nil || (runtime.IsStrictDecodingError(err) && object != nil) {
			docs = append(docs, document{source: source, object: object})
		}
	}
}

// isBlank: a document of comments and whitespace only (Helm prints `# Source:` before each).
func isBlank(raw []byte) bool {
	for _, line := range bytes.Split(raw, []byte("\n")) {
		trimmed := strings.TrimSpace(string(line))
		if trimmed != "" && !strings.HasPrefix(trimmed, "#") {
			return false
		}
	}
	return true
}

func main() {
	decoder := newDecoder()
	var docs []document
	var problems []string
	inputs := os.Args[1:]
	if len(inputs) == 0 {
		inputs = []string{"-"}
	}
	for _, name := range inputs {
		in := io.Reader(os.Stdin)
		if name != "-" {
			file, err := os.Open(name)
			if err != nil {
				fmt.Fprintln(os.Stderr, err)
				os.Exit(2)
			}
			defer file.Close()
			in = file
		} else {
			name = "stdin"
		}
		found, bad := readDocuments(name, in, decoder)
		docs = append(docs, found...)
		problems = append(problems, bad...)
	}
	problems = append(problems, validate(docs)...)
	for _, problem := range problems {
		fmt.Fprintln(os.Stderr, problem)
	}
	if len(problems) > 0 {
		fmt.Fprintf(os.Stderr, "%d problem(s) in %d object(s)\n", len(problems), len(docs))
		os.Exit(1)
	}
	fmt.Printf("%d object(s) valid\n", len(docs))
}
