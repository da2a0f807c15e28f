// Optional embeddings: an Embedder turns texts into vectors for the vector list of hybrid recall.
// Recall works without one; the OpenAI-compatible implementation speaks POST {baseUrl}/embeddings.

export interface Embedder {
  readonly name: string;
  embed(texts: string[], options?: { signal?: AbortSignal }): Promise<number[][]>;
}

export interface OpenAiEmbedderOptions {
  /** e.g. `https://api.openai.com/v1` or a local server's `/v1`. */
  baseUrl: string;
  apiKey?: string;
  model: string;
  timeoutMs?: number;
  fetch?: typeof fetch;
}

export function openAiEmbedder(o: OpenAiEmbedderOptions): Embedder {
  const doFetch = o.fetch ?? fetch;
  const url = `${o.baseUrl.replace(/\/+$/, "")}/embeddings`;
  return {
    name: `openai:${o.model}`,
    async embed(texts, options = {}) {
      if (!texts.length) return [];
      const signal = AbortSignal.any([AbortSignal.timeout(o.timeoutMs ?? 30_000), ...(options.signal ? [options.signal] : [])]);
      const res = await doFetch(url, {
        method: "POST",
        headers: { "content-type": "application/json", ...(o.apiKey ? { authorization: `Bearer ${o.apiKey}` } : {}) },
        body: JSON.stringify({ model: o.model, input: texts }),
        signal,
      });
      if (!res.ok) throw new Error(`embeddings endpoint answered ${res.status}`);
      const body = (await res.json()) as { data?: Array<{ index?: number; embedding?: unknown }> };
      const out: number[][] = new Array(texts.length);
      for (const [i, d] of (body.data ?? []).entries()) {
        if (!Array.isArray(d.embedding)) throw new Error("embeddings endpoint returned no vector");
        out[d.index ?? i] = d.embedding as number[];
      }
      if (out.filter(Boolean).length !== texts.length) throw new Error("embeddings endpoint returned too few vectors");
      return out;
    },
  };
}
