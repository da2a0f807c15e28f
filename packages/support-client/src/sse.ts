// A Server-Sent Events reader over fetch, for runtimes without EventSource (Node, workers). The framing
// (CRLF split across chunks, BOM, `id` with NUL, multi-line data) is eventsource-parser's, a well-kept
// spec-conformant parser; this file only turns its callbacks into an async iterator.
import { createParser, type EventSourceMessage } from "eventsource-parser";

export interface SseMessage {
  /** The last event id seen on this stream (it carries over to events without an `id:` line, as EventSource's lastEventId does). */
  id: string | undefined;
  data: string;
}

/** Parses an SSE byte stream into messages (`data:` lines joined by newlines); comments and `retry:` are skipped. */
export async function* readSse(body: ReadableStream<Uint8Array>): AsyncGenerator<SseMessage> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  const ready: EventSourceMessage[] = [];
  const parser = createParser({ onEvent: (ev) => void ready.push(ev) });
  let lastId: string | undefined;
  let endsWithCr = false;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      const text = done ? decoder.decode() : decoder.decode(value, { stream: true });
      if (text) {
        parser.feed(text);
        endsWithCr = text.endsWith("\r");
      }
      // a stream ending in a CR has ended that line, but the parser holds it back in case an LF follows:
      // the LF makes it the same single line end, CRLF, and releases it
      if (done && endsWithCr) parser.feed("\n");
      while (ready.length) {
        const ev = ready.shift()!;
        if (ev.id !== undefined) lastId = ev.id;
        yield { id: lastId, data: ev.data };
      }
      if (done) return;
    }
  } finally {
    reader.releaseLock();
  }
}
