// llm-d names its topics `kv@<pod-ip>:<port>@<model>`. A source given no name of its own takes
// one from its first such topic. The topic is set by the deployment that runs the engine, never
// by a request, and only a strict shape is taken from it (an address, a port, a model id).

/** Where an llm-d topic says the events come from. */
export interface TopicSource {
  pod: string;
  port: number;
  model: string;
}

// pod: an IPv4, a bracketed or bare IPv6, or a host name; model: a model id (org/name-v1.5:tag).
const LLMD_TOPIC = /^kv@([0-9A-Za-z.:[\]-]{1,64}):(\d{1,5})@([A-Za-z0-9_./:+-]{1,128})$/;

/** The pod and model an llm-d topic names, or null when the topic has another shape. */
export function llmdTopicSource(topic: string): TopicSource | null {
  const m = LLMD_TOPIC.exec(topic);
  if (m === null) return null;
  const port = Number(m[2]);
  if (port < 1 || port > 65535) return null;
  return { pod: m[1] ?? '', port, model: m[3] ?? '' };
}

/** The source name an llm-d topic gives: "<model> @ <pod-ip>:<port>". */
export function topicSourceName(t: TopicSource): string {
  return `${t.model} @ ${t.pod}:${t.port}`;
}
