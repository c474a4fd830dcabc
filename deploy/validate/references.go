package main

import (
	"fmt"
	"sort"

	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// The references between rendered objects: what Services, autoscalers and budgets select, and the
// Secret and ConfigMap keys pods read.

// checkTargets: what Services, autoscalers and budgets point at is among the rendered workloads.
func (c *checker) checkTargets(doc document) {
	switch o := doc.object.(type) {
	case *corev1.Service:
		c.report(doc.source, c.serviceTargets(o))
	case *autoscalingv2.HorizontalPodAutoscaler:
		c.report(doc.source, c.autoscalerTarget(o))
	case *policyv1.PodDisruptionBudget:
		selector, err := metav1.LabelSelectorAsSelector(p(o.Spec.Selector))
		if err == nil && len(c.selected(selector)) == 0 {
			c.report(doc.source, field.ErrorList{field.NotFound(field.NewPath("spec", "selector"), selector.String())})
		}
	}
}

func p(s *metav1.LabelSelector) *metav1.LabelSelector {
	if s == nil {
		return &metav1.LabelSelector{}
	}
	return s
}

func (c *checker) selected(selector labels.Selector) []workload {
	var found []workload
	for _, w := range c.workloads {
		if !selector.Empty() && selector.Matches(labels.Set(w.labels)) {
			found = append(found, w)
		}
	}
	return found
}

func (c *checker) serviceTargets(s *corev1.Service) field.ErrorList {
	if len(s.Spec.Selector) == 0 {
		return nil // endpoints managed apart
	}
	fld := field.NewPath("spec")
	pods := c.selected(labels.SelectorFromSet(s.Spec.Selector))
	if len(pods) == 0 {
		return field.ErrorList{field.NotFound(fld.Child("selector"), s.Spec.Selector)}
	}
	var errs field.ErrorList
	for i, port := range s.Spec.Ports {
		if port.TargetPort.Type != intstr.String {
			continue
		}
		for _, w := range pods {
			if !declaresPort(w.pod, port.TargetPort.StrVal) {
				errs = append(errs, field.NotFound(fld.Child("ports").Index(i).Child("targetPort"),
					port.TargetPort.StrVal+" (no container of "+w.kind+"/"+w.name+" names it)"))
			}
		}
	}
	return errs
}

func declaresPort(pod *corev1.PodSpec, name string) bool {
	for _, ctr := range pod.Containers {
		for _, port := range ctr.Ports {
			if port.Name == name {
				return true
			}
		}
	}
	return false
}

func (c *checker) autoscalerTarget(h *autoscalingv2.HorizontalPodAutoscaler) field.ErrorList {
	ref := h.Spec.ScaleTargetRef
	fld := field.NewPath("spec", "scaleTargetRef")
	for _, w := range c.workloads {
		if w.kind != ref.Kind || w.name != ref.Name {
			continue
		}
		var errs field.ErrorList
		for i, m := range h.Spec.Metrics {
			if m.Resource == nil || m.Resource.Target.Type != autoscalingv2.UtilizationMetricType {
				continue
			}
			for _, ctr := range w.pod.Containers {
				if _, ok := ctr.Resources.Requests[m.Resource.Name]; !ok {
					errs = append(errs, field.Invalid(field.NewPath("spec", "metrics").Index(i), string(m.Resource.Name),
						"utilization needs a request of it on container "+ctr.Name))
				}
			}
		}
		return errs
	}
	return field.ErrorList{field.NotFound(fld, ref.Kind+"/"+ref.Name)}
}

// checkReferences: a Secret or ConfigMap the chart renders has the keys pods read; those it does
// not render must exist in the namespace, and are listed.
func (c *checker) checkReferences() {
	external := map[string]bool{}
	for _, ref := range c.references {
		id := ref.kind + "/" + ref.name
		keys, rendered := c.keys[id]
		if !rendered {
			external[id] = true
			continue
		}
		if ref.key != "" && !keys[ref.key] {
			c.problems = append(c.problems, fmt.Sprintf("%s reads key %q of %s, which has no such key", ref.from, ref.key, id))
		}
	}
	var names []string
	for id := range external {
		names = append(names, id)
	}
	sort.Strings(names)
	for _, id := range names {
		fmt.Printf("expects an existing %s\n", id)
	}
}
