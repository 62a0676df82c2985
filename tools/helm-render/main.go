// Command helm-render is a TEST TOOL, not a Helm replacement. It renders scim-bridge's chart the way
// `helm template` does, so CI can check the chart on machines where no helm binary can be installed
// (test/helm/chart.test.ts builds and runs it). It covers what our templates use: Go text/template
// with sprig's functions, plus Helm's toYaml, fromYaml, toJson, fromJson, include, tpl, required,
// fail, lookup (always empty), .Release, .Chart, .Capabilities, .Template, and .Values (values.yaml
// deep-merged with -f files, later wins, null deletes). Dependency charts under charts/ are skipped.
//
// Build (Debian: golang-go golang-github-masterminds-sprig-dev golang-gopkg-yaml.v3-dev):
//
//	GO111MODULE=off GOPATH=/usr/share/gocode go build -o helm-render ./tools/helm-render
//
// Usage: helm-render [-f values.yaml]... [-name R] [-namespace N] [-api-versions G/V]... [-strict] [-notes | -values] CHART_DIR
package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"text/template"

	"github.com/Masterminds/sprig"
	"gopkg.in/yaml.v3"
)

type fileList []string

func (f *fileList) String() string     { return strings.Join(*f, ",") }
func (f *fileList) Set(v string) error { *f = append(*f, v); return nil }

// apiVersions mirrors Helm's .Capabilities.APIVersions, whose Has accepts "group/version" or "group/version/Kind".
type apiVersions []string

func (a apiVersions) Has(v string) bool {
	for _, x := range a {
		if x == v || strings.HasPrefix(v, x+"/") {
			return true
		}
	}
	return false
}

// missingKey is Helm's template option: zero for `helm template`, error for `helm lint`.
var missingKey = "missingkey=zero"

var builtinAPIs = []string{"v1", "apps/v1", "batch/v1", "policy/v1", "autoscaling/v1", "autoscaling/v2",
	"networking.k8s.io/v1", "rbac.authorization.k8s.io/v1"}

func main() {
	var valueFiles, extraAPIs fileList
	flag.Var(&valueFiles, "f", "values file merged over values.yaml (repeatable)")
	flag.Var(&extraAPIs, "api-versions", "extra API version for .Capabilities.APIVersions (repeatable)")
	name := flag.String("name", "release", "release name")
	namespace := flag.String("namespace", "default", "release namespace")
	kubeVersion := flag.String("kube-version", "v1.30.0", "Kubernetes version for .Capabilities")
	notes := flag.Bool("notes", false, "print the rendered NOTES.txt instead of the manifests")
	printValues := flag.Bool("values", false, "print the merged values as JSON instead of the manifests")
	strict := flag.Bool("strict", false, "fail on missing map keys, as `helm lint` renders (missingkey=error)")
	flag.Parse()
	if flag.NArg() != 1 {
		fail(errors.New("usage: helm-render [flags] CHART_DIR"))
	}
	missingKey = map[bool]string{false: "missingkey=zero", true: "missingkey=error"}[*strict]
	out, err := run(flag.Arg(0), valueFiles, *name, *namespace, *kubeVersion, extraAPIs, *notes, *printValues)
	if err != nil {
		fail(err)
	}
	fmt.Print(out)
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "Error:", err)
	os.Exit(1)
}

func run(dir string, valueFiles []string, name, namespace, kubeVersion string, apis []string, notes, printValues bool) (string, error) {
	meta, err := readYAML(filepath.Join(dir, "Chart.yaml"))
	if err != nil {
		return "", err
	}
	values, err := readYAML(filepath.Join(dir, "values.yaml"))
	if err != nil {
		return "", err
	}
	for _, f := range valueFiles {
		override, err := readYAML(f)
		if err != nil {
			return "", err
		}
		values = merge(values, override)
	}
	if printValues {
		data, err := json.MarshalIndent(values, "", "  ")
		return string(data) + "\n", err
	}
	chartName, _ := meta["name"].(string)
	tmpl, names, err := parseTemplates(dir, chartName)
	if err != nil {
		return "", err
	}
	major, minor := splitVersion(kubeVersion)
	root := map[string]interface{}{
		"Values":  values,
		"Chart":   chartObject(meta),
		"Release": map[string]interface{}{"Name": name, "Namespace": namespace, "Service": "Helm", "IsInstall": true, "IsUpgrade": false, "Revision": 1},
		"Capabilities": map[string]interface{}{
			"KubeVersion": map[string]interface{}{"Version": kubeVersion, "GitVersion": kubeVersion, "Major": major, "Minor": minor},
			"APIVersions": apiVersions(append(append([]string{}, builtinAPIs...), apis...)),
		},
	}
	var out strings.Builder
	for _, n := range names {
		base := filepath.Base(n)
		if strings.HasPrefix(base, "_") || (base == "NOTES.txt") != notes {
			continue
		}
		text, err := execute(tmpl, n, root)
		if err != nil {
			return "", err
		}
		if notes {
			out.WriteString(text)
			continue
		}
		for _, doc := range regexp.MustCompile(`(?m)^---\s*$`).Split(text, -1) {
			if strings.TrimSpace(doc) != "" {
				fmt.Fprintf(&out, "---\n# Source: %s\n%s\n", n, strings.Trim(doc, "\n"))
			}
		}
	}
	return out.String(), nil
}

// execute runs one template with Helm's per-template .Template and its "<no value>" clean-up.
func execute(tmpl *template.Template, name string, root map[string]interface{}) (string, error) {
	data := map[string]interface{}{}
	for k, v := range root {
		data[k] = v
	}
	data["Template"] = map[string]interface{}{"Name": name, "BasePath": filepath.Dir(name)}
	var buf bytes.Buffer
	if err := tmpl.ExecuteTemplate(&buf, name, data); err != nil {
		return "", err
	}
	return strings.ReplaceAll(buf.String(), "<no value>", ""), nil
}

func parseTemplates(dir, chartName string) (*template.Template, []string, error) {
	var t *template.Template
	funcs := helmFuncs(func() *template.Template { return t })
	t = template.New("").Funcs(funcs).Option(missingKey)
	var names []string
	tdir := filepath.Join(dir, "templates")
	err := filepath.Walk(tdir, func(path string, info os.FileInfo, err error) error {
		if err != nil || info.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(tdir, path)
		name := chartName + "/templates/" + filepath.ToSlash(rel)
		src, err := os.ReadFile(path)
		if err == nil {
			_, err = t.New(name).Parse(string(src))
		}
		names = append(names, name)
		return err
	})
	sort.Strings(names)
	return t, names, err
}

func helmFuncs(current func() *template.Template) template.FuncMap {
	f := sprig.TxtFuncMap()
	delete(f, "env")
	delete(f, "expandenv")
	f["toYaml"] = toYAML
	f["fromYaml"] = func(s string) map[string]interface{} {
		m := map[string]interface{}{}
		if err := yaml.Unmarshal([]byte(s), &m); err != nil {
			m["Error"] = err.Error()
		}
		return m
	}
	f["toJson"] = func(v interface{}) string { data, _ := json.Marshal(v); return string(data) }
	f["fromJson"] = func(s string) map[string]interface{} {
		m := map[string]interface{}{}
		if err := json.Unmarshal([]byte(s), &m); err != nil {
			m["Error"] = err.Error()
		}
		return m
	}
	f["include"] = func(name string, data interface{}) (string, error) {
		var buf bytes.Buffer
		err := current().ExecuteTemplate(&buf, name, data)
		return buf.String(), err
	}
	f["tpl"] = func(text string, data interface{}) (string, error) {
		clone, err := current().Clone()
		if err == nil {
			_, err = clone.New("tpl").Parse(text)
		}
		if err != nil {
			return "", err
		}
		var buf bytes.Buffer
		err = clone.ExecuteTemplate(&buf, "tpl", data)
		return strings.ReplaceAll(buf.String(), "<no value>", ""), err
	}
	f["required"] = func(msg string, v interface{}) (interface{}, error) {
		if s, ok := v.(string); v == nil || (ok && s == "") {
			return v, errors.New(msg)
		}
		return v, nil
	}
	f["fail"] = func(msg string) (string, error) { return "", errors.New(msg) }
	f["lookup"] = func(string, string, string, string) (map[string]interface{}, error) {
		return map[string]interface{}{}, nil
	}
	return f
}

// toYAML matches Helm's: whole numbers as integers, two-space indent, no trailing newline, "" on error.
func toYAML(v interface{}) string {
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(integral(v)); err != nil {
		return ""
	}
	return strings.TrimSuffix(buf.String(), "\n")
}

// integral turns whole float64s back into ints, as Helm's YAML→JSON→YAML round trip does.
func integral(v interface{}) interface{} {
	switch x := v.(type) {
	case float64:
		if x == float64(int64(x)) {
			return int64(x)
		}
	case map[string]interface{}:
		out := map[string]interface{}{}
		for k, e := range x {
			out[k] = integral(e)
		}
		return out
	case []interface{}:
		out := make([]interface{}, len(x))
		for i, e := range x {
			out[i] = integral(e)
		}
		return out
	}
	return v
}

// readYAML reads a mapping the way Helm does: through JSON, so every number is a float64 (printing
// a large one without toYaml or int gives 6.7108864e+07 here exactly as in Helm).
func readYAML(path string) (map[string]interface{}, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var raw interface{}
	if err := yaml.Unmarshal(data, &raw); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	m := map[string]interface{}{}
	if raw == nil {
		return m, nil
	}
	asJSON, err := json.Marshal(raw)
	if err == nil {
		err = json.Unmarshal(asJSON, &m)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: not a mapping of JSON-compatible values: %w", path, err)
	}
	return m, nil
}

// merge is Helm's coalescing for user values: maps merge key by key, anything else replaces, null deletes.
func merge(base, override map[string]interface{}) map[string]interface{} {
	out := map[string]interface{}{}
	for k, v := range base {
		out[k] = v
	}
	for k, v := range override {
		bm, bok := out[k].(map[string]interface{})
		om, ook := v.(map[string]interface{})
		switch {
		case v == nil:
			delete(out, k)
		case bok && ook:
			out[k] = merge(bm, om)
		default:
			out[k] = v
		}
	}
	return out
}

// chartObject exposes Chart.yaml with Helm's field names (.Chart.Name, .Chart.AppVersion, ...).
func chartObject(meta map[string]interface{}) map[string]interface{} {
	out := map[string]interface{}{}
	for k, v := range meta {
		if k == "apiVersion" {
			out["APIVersion"] = v
		} else if k != "" {
			out[strings.ToUpper(k[:1])+k[1:]] = v
		}
	}
	return out
}

func splitVersion(v string) (string, string) {
	parts := strings.SplitN(strings.TrimPrefix(v, "v"), ".", 3)
	if len(parts) < 2 {
		return parts[0], "0"
	}
	return parts[0], parts[1]
}
