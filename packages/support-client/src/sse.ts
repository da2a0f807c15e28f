// A minimal Server-Sent Events reader over fetch, for runtimes without EventSource (Node, workers).
export interface SseMessage {
  id: string | undefined;
  data: string;
}

/** Parses an SSE byte stream into messages (`data:` lines joined by newlines); comments and `retry:` are skipped. */
export async function* readSse(body: ReadableStream<Uint8Array>): AsyncGenerator<SseMessage> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buf = "";
  let data: string[] = [];
  let id: string | undefined;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      buf += decoder.decode(value, { stream: true });
      let nl = buf.search(/\r\n|\r|\n/);
      while (nl !== -1) {
        const line = buf.slice(0, nl);
        buf = buf.slice(nl + (buf.startsWith("\r\n", nl) ? 2 : 1));
        if (line === "") {
          if (data.length) yield { id, data: data.join("\n") };
          data = [];
        } else if (!line.startsWith(":")) {
          const colon = line.indexOf(":");
          const field = colon === -1 ? line : line.slice(0, colon);
          const value = colon === -1 ? "" : line.slice(colon + 1).replace(/^ /, "");
          if (field === "data") data.push(value);
          else if (field === "id" && !value.includes("\0")) id = value;
        }
        nl = buf.search(/\r\n|\r|\n/);
      }
    }
  } finally {
    reader.releaseLock();
  }
}
