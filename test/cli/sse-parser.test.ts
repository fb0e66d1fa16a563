import { describe, expect, it } from 'vitest';
import { createSseParser } from '../../src/cli/sse-parser.js';

const stream = [
  ': connected',
  'data: {"type":"heartbeat"}',
  '',
  'id: 7',
  'data: {"type":"dag_node",',
  'data: "nodeId":"a"}',
  '',
  ': heartbeat',
  '',
  'id: 8',
  'event: message',
  'data:{"seq":8}',
  '',
  '',
].join('\r\n');

describe('SSE parsing', () => {
  it('yields each message with its id, joining multi-line data and skipping comments', () => {
    expect(createSseParser().feed(stream)).toEqual([
      { id: undefined, event: undefined, data: '{"type":"heartbeat"}' },
      { id: '7', event: undefined, data: '{"type":"dag_node",\n"nodeId":"a"}' },
      { id: '8', event: 'message', data: '{"seq":8}' },
    ]);
  });

  it('gives the same messages however the bytes are split, even inside a CRLF', () => {
    const whole = createSseParser().feed(stream);
    for (const size of [1, 2, 3, 7, 13]) {
      const parser = createSseParser();
      const got = [];
      for (let i = 0; i < stream.length; i += size) got.push(...parser.feed(stream.slice(i, i + size)));
      expect(got, `chunks of ${size}`).toEqual(whole);
    }
  });

  it('does not dispatch a message until its blank line arrives', () => {
    const parser = createSseParser();
    expect(parser.feed('id: 1\ndata: x\n')).toEqual([]);
    expect(parser.feed('\n')).toEqual([{ id: '1', event: undefined, data: 'x' }]);
  });
});
