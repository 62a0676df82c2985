import { ConfigMap } from 'kubernetes-models/v1/ConfigMap';
import { Secret } from 'kubernetes-models/v1/Secret';
import { Service } from 'kubernetes-models/v1/Service';
import { ServiceAccount } from 'kubernetes-models/v1/ServiceAccount';
import { Deployment } from 'kubernetes-models/apps/v1/Deployment';
import { HorizontalPodAutoscaler } from 'kubernetes-models/autoscaling/v2/HorizontalPodAutoscaler';
import { Ingress } from 'kubernetes-models/networking.k8s.io/v1/Ingress';
import { PodDisruptionBudget } from 'kubernetes-models/policy/v1/PodDisruptionBudget';
import type { IDeployment } from 'kubernetes-models/apps/v1/Deployment';
import type { IContainer } from 'kubernetes-models/v1/Container';
import type { IPodSpec } from 'kubernetes-models/v1/PodSpec';
import { isObject, type Manifest } from './chart-renderer.js';

/** Kinds the chart may render. Built-in kinds are checked against the Kubernetes OpenAPI schemas. */
type ModelClass = new (data: never) => { validate(): void };
const BUILT_IN: Record<string, ModelClass> = {
  'v1/ConfigMap': ConfigMap,
  'v1/Secret': Secret,
  'v1/Service': Service,
  'v1/ServiceAccount': ServiceAccount,
  'apps/v1/Deployment': Deployment,
  'autoscaling/v2/HorizontalPodAutoscaler': HorizontalPodAutoscaler,
  'networking.k8s.io/v1/Ingress': Ingress,
  'policy/v1/PodDisruptionBudget': PodDisruptionBudget,
};
const CUSTOM: Record<string, (spec: unknown) => string[]> = {
  'monitoring.coreos.com/v1/ServiceMonitor': serviceMonitorProblems,
  'monitoring.coreos.com/v1/PrometheusRule': prometheusRuleProblems,
};

/** Problems of one manifest; throws for kinds the test does not know (add them above). */
export function manifestProblems(manifest: Manifest): string[] {
  const { source: _source, ...object } = manifest;
  const type = `${manifest.apiVersion}/${manifest.kind}`;
  const Model = BUILT_IN[type];
  if (Model) {
    try {
      new Model(object as never).validate();
      return [];
    } catch (error) {
      return [`${type} ${manifest.metadata.name}: ${(error as Error).message}`];
    }
  }
  const check = CUSTOM[type];
  if (!check) throw new Error(`${manifest.source}: no check for ${type}`);
  return check(object.spec).map((problem) => `${type} ${manifest.metadata.name}: ${problem}`);
}

const DURATION = /^(\d+(ms|s|m|h|d|w|y))+$/;

function serviceMonitorProblems(spec: unknown): string[] {
  if (!isObject(spec)) return ['spec is not an object'];
  const problems: string[] = [];
  const selector = spec.selector;
  if (
    !isObject(selector) ||
    !isObject(selector.matchLabels) ||
    Object.keys(selector.matchLabels).length === 0
  ) {
    problems.push('spec.selector.matchLabels is empty');
  }
  const endpoints = Array.isArray(spec.endpoints) ? spec.endpoints : [];
  if (endpoints.length === 0) problems.push('spec.endpoints is empty');
  endpoints.forEach((endpoint: unknown, i) => {
    if (!isObject(endpoint)) return problems.push(`endpoints[${i}] is not an object`);
    if (typeof endpoint.port !== 'string') problems.push(`endpoints[${i}].port is not a port name`);
    if (typeof endpoint.path !== 'string' || !endpoint.path.startsWith('/'))
      problems.push(`endpoints[${i}].path`);
    for (const key of ['interval', 'scrapeTimeout'] as const) {
      const value = endpoint[key];
      if (value !== undefined && !(typeof value === 'string' && DURATION.test(value))) {
        problems.push(`endpoints[${i}].${key} is not a duration`);
      }
    }
    const auth = endpoint.authorization;
    if (auth !== undefined) {
      const credentials = isObject(auth) ? auth.credentials : undefined;
      if (
        !isObject(auth) ||
        auth.type !== 'Bearer' ||
        !isObject(credentials) ||
        !credentials.name ||
        !credentials.key
      ) {
        problems.push(`endpoints[${i}].authorization needs type Bearer and credentials {name, key}`);
      }
    }
    return undefined;
  });
  return problems;
}

function prometheusRuleProblems(spec: unknown): string[] {
  if (!isObject(spec) || !Array.isArray(spec.groups) || spec.groups.length === 0)
    return ['spec.groups is empty'];
  const problems: string[] = [];
  for (const group of spec.groups as unknown[]) {
    if (!isObject(group) || typeof group.name !== 'string' || !Array.isArray(group.rules)) {
      problems.push('a group needs a name and rules');
      continue;
    }
    for (const rule of group.rules as unknown[]) problems.push(...ruleProblems(rule));
  }
  return problems;
}

/** The shape Prometheus requires of an alerting rule, plus balanced brackets in its expression. */
export function ruleProblems(rule: unknown): string[] {
  if (!isObject(rule)) return ['a rule is not an object'];
  const name = String(rule.alert);
  const problems: string[] = [];
  if (typeof rule.alert !== 'string' || !/^[A-Za-z_][\w]*$/.test(rule.alert))
    problems.push(`${name}: alert name`);
  if (typeof rule.expr !== 'string' || !balanced(rule.expr))
    problems.push(`${name}: expr is not balanced PromQL`);
  if (rule.for !== undefined && !(typeof rule.for === 'string' && DURATION.test(rule.for))) {
    problems.push(`${name}: for is not a duration`);
  }
  for (const key of ['labels', 'annotations'] as const) {
    const map = rule[key];
    if (!isObject(map) || !Object.values(map).every((v) => typeof v === 'string')) {
      problems.push(`${name}: ${key} must map to strings`);
    }
  }
  return problems;
}

function balanced(expr: string): boolean {
  const open: string[] = [];
  const pairs: Record<string, string> = { ')': '(', ']': '[', '}': '{' };
  for (const char of expr.replace(/"[^"]*"/g, '""')) {
    if ('([{'.includes(char)) open.push(char);
    else if (char in pairs && open.pop() !== pairs[char]) return false;
  }
  return open.length === 0;
}

export function ofKind(manifests: readonly Manifest[], kind: string): Manifest[] {
  return manifests.filter((m) => m.kind === kind);
}

export function deployments(manifests: readonly Manifest[]): IDeployment[] {
  return ofKind(manifests, 'Deployment') as unknown as IDeployment[];
}

export function podSpec(deployment: IDeployment): IPodSpec {
  const spec = deployment.spec?.template.spec;
  if (!spec) throw new Error(`${deployment.metadata?.name} has no pod spec`);
  return spec;
}

export function container(deployment: IDeployment): IContainer {
  const [first] = podSpec(deployment).containers;
  if (!first) throw new Error(`${deployment.metadata?.name} has no container`);
  return first;
}

export function podLabels(deployment: IDeployment): Record<string, string> {
  return deployment.spec?.template.metadata?.labels ?? {};
}

export function role(deployment: IDeployment): string {
  return podLabels(deployment)['app.kubernetes.io/component'] ?? '';
}

/** Whether matchLabels-style selector picks a pod with these labels. */
export function selects(
  selector: Record<string, string> | undefined,
  labels: Record<string, string>,
): boolean {
  const entries = Object.entries(selector ?? {});
  return entries.length > 0 && entries.every(([key, value]) => labels[key] === value);
}
