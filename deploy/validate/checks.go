package main

import (
	"fmt"
	"path"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// workload is a pod template some controller runs, for the references that point at pods.
type workload struct {
	kind, name string
	labels     map[string]string
	pod        *corev1.PodSpec
}

// reference is a Secret or ConfigMap key a pod reads; empty key: the whole object.
type reference struct {
	kind, name, key, from string
}

// checker gathers the problems of every document, then the references between them.
type checker struct {
	problems   []string
	workloads  []workload
	references []reference
	keys       map[string]map[string]bool // "Secret/name" -> its keys
}

func validate(docs []document) []string {
	c := &checker{keys: map[string]map[string]bool{}}
	for _, doc := range docs {
		c.check(doc)
	}
	for _, doc := range docs {
		c.checkTargets(doc)
	}
	c.checkReferences()
	return c.problems
}

func (c *checker) report(source string, errs field.ErrorList) {
	for _, err := range errs {
		c.problems = append(c.problems, fmt.Sprintf("%s: %v", source, err))
	}
}

func (c *checker) check(doc document) {
	src := doc.source
	meta := field.NewPath("metadata")
	switch o := doc.object.(type) {
	case *appsv1.Deployment:
		c.report(src, objectMeta(&o.ObjectMeta, apivalidation.NameIsDNSSubdomain))
		c.report(src, c.podTemplate(o.Name, "Deployment", o.Spec.Selector, &o.Spec.Template, field.NewPath("spec")))
	case *appsv1.StatefulSet:
		c.report(src, objectMeta(&o.ObjectMeta, apivalidation.NameIsDNSLabel))
		c.report(src, c.podTemplate(o.Name, "StatefulSet", o.Spec.Selector, &o.Spec.Template, field.NewPath("spec")))
	case *corev1.Service:
		c.report(src, objectMeta(&o.ObjectMeta, apivalidation.NameIsDNS1035Label))
		c.report(src, servicePorts(o))
	case *corev1.Secret:
		c.report(src, objectMeta(&o.ObjectMeta, apivalidation.NameIsDNSSubdomain))
		c.report(src, c.objectKeys("Secret/"+o.Name, keysOf(o.Data, o.StringData), field.NewPath("data")))
	case *corev1.ConfigMap:
		c.report(src, objectMeta(&o.ObjectMeta, apivalidation.NameIsDNSSubdomain))
		c.report(src, c.objectKeys("ConfigMap/"+o.Name, keysOf(o.Data, o.BinaryData), field.NewPath("data")))
	case *autoscalingv2.HorizontalPodAutoscaler:
		c.report(src, objectMeta(&o.ObjectMeta, apivalidation.NameIsDNSSubdomain))
		c.report(src, autoscalerBounds(o))
	case *policyv1.PodDisruptionBudget:
		c.report(src, objectMeta(&o.ObjectMeta, apivalidation.NameIsDNSSubdomain))
		c.report(src, disruptionBudget(o))
	default:
		accessor, ok := doc.object.(metav1.Object)
		if !ok {
			c.problems = append(c.problems, fmt.Sprintf("%s: not a Kubernetes object", src))
			return
		}
		c.report(src, apivalidation.ValidateObjectMetaAccessor(accessor, accessor.GetNamespace() != "",
			apivalidation.NameIsDNSSubdomain, meta))
	}
}

func objectMeta(meta *metav1.ObjectMeta, name apivalidation.ValidateNameFunc) field.ErrorList {
	return apivalidation.ValidateObjectMeta(meta, meta.Namespace != "", name, field.NewPath("metadata"))
}

func keysOf[A any, B any](a map[string]A, b map[string]B) []string {
	var keys []string
	for k := range a {
		keys = append(keys, k)
	}
	for k := range b {
		keys = append(keys, k)
	}
	return keys
}

func (c *checker) objectKeys(id string, keys []string, fld *field.Path) field.ErrorList {
	var errs field.ErrorList
	c.keys[id] = map[string]bool{}
	for _, key := range keys {
		for _, msg := range validation.IsConfigMapKey(key) {
			errs = append(errs, field.Invalid(fld.Key(key), key, msg))
		}
		c.keys[id][key] = true
	}
	return errs
}

// podTemplate: the selector selects the template's labels, then the pod itself.
func (c *checker) podTemplate(name, kind string, selector *metav1.LabelSelector, template *corev1.PodTemplateSpec,
	fld *field.Path) field.ErrorList {
	var errs field.ErrorList
	if selector == nil || (len(selector.MatchLabels) == 0 && len(selector.MatchExpressions) == 0) {
		errs = append(errs, field.Required(fld.Child("selector"), "a workload selects its pods"))
	} else {
		errs = append(errs, metav1validation.ValidateLabelSelector(selector,
			metav1validation.LabelSelectorValidationOptions{}, fld.Child("selector"))...)
		if s, err := metav1.LabelSelectorAsSelector(selector); err == nil && !s.Matches(labels.Set(template.Labels)) {
			errs = append(errs, field.Invalid(fld.Child("template", "metadata", "labels"), template.Labels,
				"does not match spec.selector"))
		}
	}
	errs = append(errs, metav1validation.ValidateLabels(template.Labels, fld.Child("template", "metadata", "labels"))...)
	errs = append(errs, apivalidation.ValidateAnnotations(template.Annotations,
		fld.Child("template", "metadata", "annotations"))...)
	c.workloads = append(c.workloads, workload{kind: kind, name: name, labels: template.Labels, pod: &template.Spec})
	return append(errs, c.podSpec(kind+"/"+name, &template.Spec, fld.Child("template", "spec"))...)
}

func (c *checker) podSpec(owner string, pod *corev1.PodSpec, fld *field.Path) field.ErrorList {
	var errs field.ErrorList
	volumes := map[string]bool{}
	for i, v := range pod.Volumes {
		vf := fld.Child("volumes").Index(i)
		errs = append(errs, dnsLabel(vf.Child("name"), v.Name)...)
		if volumes[v.Name] {
			errs = append(errs, field.Duplicate(vf.Child("name"), v.Name))
		}
		volumes[v.Name] = true
		c.volumeReferences(owner, v)
	}
	if len(pod.Containers) == 0 {
		errs = append(errs, field.Required(fld.Child("containers"), "a pod runs at least one container"))
	}
	names := map[string]bool{}
	for i := range pod.Containers {
		cf := fld.Child("containers").Index(i)
		if names[pod.Containers[i].Name] {
			errs = append(errs, field.Duplicate(cf.Child("name"), pod.Containers[i].Name))
		}
		names[pod.Containers[i].Name] = true
		errs = append(errs, c.container(owner, &pod.Containers[i], volumes, cf)...)
	}
	for i := range pod.InitContainers {
		errs = append(errs, c.container(owner, &pod.InitContainers[i], volumes, fld.Child("initContainers").Index(i))...)
	}
	if g := pod.TerminationGracePeriodSeconds; g != nil && *g < 0 {
		errs = append(errs, field.Invalid(fld.Child("terminationGracePeriodSeconds"), *g, "must be non-negative"))
	}
	return errs
}

func (c *checker) volumeReferences(owner string, v corev1.Volume) {
	from := owner + " volume " + v.Name
	if s := v.Secret; s != nil && (s.Optional == nil || !*s.Optional) {
		c.references = append(c.references, keyReferences("Secret", s.SecretName, s.Items, from)...)
	}
	if m := v.ConfigMap; m != nil && (m.Optional == nil || !*m.Optional) {
		c.references = append(c.references, keyReferences("ConfigMap", m.Name, m.Items, from)...)
	}
	if p := v.Projected; p != nil {
		for _, source := range p.Sources {
			if s := source.Secret; s != nil && (s.Optional == nil || !*s.Optional) {
				c.references = append(c.references, keyReferences("Secret", s.Name, s.Items, from)...)
			}
		}
	}
}

func keyReferences(kind, name string, items []corev1.KeyToPath, from string) []reference {
	if len(items) == 0 {
		return []reference{{kind: kind, name: name, from: from}}
	}
	var refs []reference
	for _, item := range items {
		refs = append(refs, reference{kind: kind, name: name, key: item.Key, from: from})
	}
	return refs
}

func dnsLabel(fld *field.Path, value string) field.ErrorList {
	var errs field.ErrorList
	for _, msg := range validation.IsDNS1123Label(value) {
		errs = append(errs, field.Invalid(fld, value, msg))
	}
	return errs
}

func (c *checker) container(owner string, ctr *corev1.Container, volumes map[string]bool, fld *field.Path) field.ErrorList {
	errs := dnsLabel(fld.Child("name"), ctr.Name)
	if ctr.Image == "" {
		errs = append(errs, field.Required(fld.Child("image"), "a container names its image"))
	}
	ports := map[string]bool{}
	for i, p := range ctr.Ports {
		pf := fld.Child("ports").Index(i)
		errs = append(errs, portNumber(pf.Child("containerPort"), int(p.ContainerPort))...)
		if p.Name != "" {
			for _, msg := range validation.IsValidPortName(p.Name) {
				errs = append(errs, field.Invalid(pf.Child("name"), p.Name, msg))
			}
			ports[p.Name] = true
		}
	}
	errs = append(errs, c.environment(owner+" container "+ctr.Name, ctr, fld)...)
	for i, m := range ctr.VolumeMounts {
		mf := fld.Child("volumeMounts").Index(i)
		if !volumes[m.Name] {
			errs = append(errs, field.NotFound(mf.Child("name"), m.Name))
		}
		if !path.IsAbs(m.MountPath) {
			errs = append(errs, field.Invalid(mf.Child("mountPath"), m.MountPath, "must be an absolute path"))
		}
	}
	errs = append(errs, probe(ctr.LivenessProbe, ports, fld.Child("livenessProbe"))...)
	errs = append(errs, probe(ctr.ReadinessProbe, ports, fld.Child("readinessProbe"))...)
	errs = append(errs, probe(ctr.StartupProbe, ports, fld.Child("startupProbe"))...)
	return append(errs, resources(ctr.Resources, fld.Child("resources"))...)
}

func (c *checker) environment(from string, ctr *corev1.Container, fld *field.Path) field.ErrorList {
	var errs field.ErrorList
	seen := map[string]bool{}
	for i, e := range ctr.Env {
		ef := fld.Child("env").Index(i)
		for _, msg := range validation.IsEnvVarName(e.Name) {
			errs = append(errs, field.Invalid(ef.Child("name"), e.Name, msg))
		}
		if seen[e.Name] {
			errs = append(errs, field.Duplicate(ef.Child("name"), e.Name))
		}
		seen[e.Name] = true
		if e.ValueFrom == nil {
			continue
		}
		if e.Value != "" {
			errs = append(errs, field.Invalid(ef.Child("valueFrom"), "", "may not be set with value"))
		}
		if s := e.ValueFrom.SecretKeyRef; s != nil && (s.Optional == nil || !*s.Optional) {
			c.references = append(c.references, reference{"Secret", s.Name, s.Key, from + " env " + e.Name})
		}
		if m := e.ValueFrom.ConfigMapKeyRef; m != nil && (m.Optional == nil || !*m.Optional) {
			c.references = append(c.references, reference{"ConfigMap", m.Name, m.Key, from + " env " + e.Name})
		}
	}
	for _, source := range ctr.EnvFrom {
		if s := source.SecretRef; s != nil && (s.Optional == nil || !*s.Optional) {
			c.references = append(c.references, reference{kind: "Secret", name: s.Name, from: from + " envFrom"})
		}
		if m := source.ConfigMapRef; m != nil && (m.Optional == nil || !*m.Optional) {
			c.references = append(c.references, reference{kind: "ConfigMap", name: m.Name, from: from + " envFrom"})
		}
	}
	return errs
}

func portNumber(fld *field.Path, port int) field.ErrorList {
	var errs field.ErrorList
	for _, msg := range validation.IsValidPortNum(port) {
		errs = append(errs, field.Invalid(fld, port, msg))
	}
	return errs
}

// probe: an HTTP or TCP probe names a port the container declares (by name) or a valid number.
func probe(p *corev1.Probe, ports map[string]bool, fld *field.Path) field.ErrorList {
	if p == nil {
		return nil
	}
	var errs field.ErrorList
	check := func(port intstr.IntOrString, pf *field.Path) {
		if port.Type == intstr.String && !ports[port.StrVal] {
			errs = append(errs, field.NotFound(pf, port.StrVal))
		} else if port.Type == intstr.Int {
			errs = append(errs, portNumber(pf, port.IntValue())...)
		}
	}
	if h := p.HTTPGet; h != nil {
		check(h.Port, fld.Child("httpGet", "port"))
		if !strings.HasPrefix(h.Path, "/") {
			errs = append(errs, field.Invalid(fld.Child("httpGet", "path"), h.Path, "must start with /"))
		}
	}
	if t := p.TCPSocket; t != nil {
		check(t.Port, fld.Child("tcpSocket", "port"))
	}
	if p.HTTPGet == nil && p.TCPSocket == nil && p.Exec == nil && p.GRPC == nil {
		errs = append(errs, field.Required(fld, "a probe needs a handler"))
	}
	return errs
}

func resources(r corev1.ResourceRequirements, fld *field.Path) field.ErrorList {
	var errs field.ErrorList
	for name, request := range r.Requests {
		if limit, ok := r.Limits[name]; ok && request.Cmp(limit) > 0 {
			errs = append(errs, field.Invalid(fld.Child("requests").Key(string(name)), request.String(),
				"must be less than or equal to the limit "+limit.String()))
		}
	}
	return errs
}

func servicePorts(s *corev1.Service) field.ErrorList {
	var errs field.ErrorList
	fld := field.NewPath("spec", "ports")
	if len(s.Spec.Ports) == 0 {
		errs = append(errs, field.Required(fld, "a Service has at least one port"))
	}
	for i, p := range s.Spec.Ports {
		errs = append(errs, portNumber(fld.Index(i).Child("port"), int(p.Port))...)
		if len(s.Spec.Ports) > 1 && p.Name == "" {
			errs = append(errs, field.Required(fld.Index(i).Child("name"), "ports of a multi-port Service are named"))
		}
	}
	return errs
}

func autoscalerBounds(h *autoscalingv2.HorizontalPodAutoscaler) field.ErrorList {
	var errs field.ErrorList
	fld := field.NewPath("spec")
	if h.Spec.MinReplicas != nil && *h.Spec.MinReplicas < 1 {
		errs = append(errs, field.Invalid(fld.Child("minReplicas"), *h.Spec.MinReplicas, "must be at least 1"))
	}
	if h.Spec.MinReplicas != nil && h.Spec.MaxReplicas < *h.Spec.MinReplicas {
		errs = append(errs, field.Invalid(fld.Child("maxReplicas"), h.Spec.MaxReplicas, "must be at least minReplicas"))
	}
	return errs
}

func disruptionBudget(p *policyv1.PodDisruptionBudget) field.ErrorList {
	fld := field.NewPath("spec")
	if p.Spec.MinAvailable != nil && p.Spec.MaxUnavailable != nil {
		return field.ErrorList{field.Invalid(fld, "", "minAvailable and maxUnavailable cannot both be set")}
	}
	if p.Spec.Selector == nil {
		return field.ErrorList{field.Required(fld.Child("selector"), "a budget selects its pods")}
	}
	return metav1validation.ValidateLabelSelector(p.Spec.Selector, metav1validation.LabelSelectorValidationOptions{},
		fld.Child("selector"))
}
