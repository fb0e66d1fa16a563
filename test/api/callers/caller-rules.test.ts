import { describe, expect, it } from 'vitest';
import { isAllowedHost, type HostPolicy } from '../../../src/api/callers/caller-host.js';
import { decideOrigin, isStateChanging, type CallerHeaders } from '../../../src/api/callers/caller-origin.js';
import { listensBeyondLoopback, parseAllowedHosts, parseHostAndPort, type HostAndPort } from '../../../src/shared/host-names.js';

/** The caller rules alone: which Host names, and which Origin / Sec-Fetch-Site / Referer combinations, pass. */

const loopbackOnly: HostPolicy = { listenHost: '127.0.0.1', allowedHosts: [] };
const onPort = (port: number, address = '127.0.0.1') => ({ port, address });
const host = (text: string): HostAndPort => {
  const parsed = parseHostAndPort(text);
  if (!parsed) throw new Error(`not a host: ${text}`);
  return parsed;
};

describe('Host header', () => {
  it.each([
    ['localhost:3090'],
    ['LOCALHOST:3090'],
    ['127.0.0.1:3090'],
    ['127.0.0.2:3090'],
    ['[::1]:3090'],
    ['app.localhost:3090'],
  ])('accepts the loopback name %s on the server’s port', (text) => {
    expect(isAllowedHost(host(text), onPort(3090), loopbackOnly)).toBe(true);
  });

  it.each([
    ['localhost:3091', 'another port'],
    ['localhost', 'no port: port 80'],
    ['evil.example:3090', 'a rebinding name'],
    ['localhost.evil.example:3090', 'a name that only starts like localhost'],
    ['127.0.0.1.nip.io:3090', 'a name that embeds a loopback address'],
    ['192.168.1.20:3090', 'an address the connection did not arrive on'],
  ])('refuses %s (%s)', (text) => {
    expect(isAllowedHost(host(text), onPort(3090), loopbackOnly)).toBe(false);
  });

  it('accepts the listen address, and the address the connection arrived on when listening on every interface', () => {
    expect(isAllowedHost(host('192.168.1.20:3090'), onPort(3090, '192.168.1.20'), { listenHost: '192.168.1.20', allowedHosts: [] })).toBe(true);
    expect(isAllowedHost(host('cairn.lan:3090'), onPort(3090, '192.168.1.20'), { listenHost: 'cairn.lan', allowedHosts: [] })).toBe(true);
    const wildcard: HostPolicy = { listenHost: '0.0.0.0', allowedHosts: [] };
    expect(isAllowedHost(host('192.168.1.20:3090'), onPort(3090, '::ffff:192.168.1.20'), wildcard)).toBe(true);
    expect(isAllowedHost(host('[fd00::5]:3090'), onPort(3090, 'fd00::5'), wildcard)).toBe(true);
    // A wildcard is not a name: a Host of 0.0.0.0 or of another interface is not this connection's.
    expect(isAllowedHost(host('0.0.0.0:3090'), onPort(3090, '192.168.1.20'), wildcard)).toBe(false);
    expect(isAllowedHost(host('10.0.0.9:3090'), onPort(3090, '192.168.1.20'), wildcard)).toBe(false);
  });

  it('accepts configured names on any port unless the entry names one', () => {
    const policy: HostPolicy = { listenHost: '127.0.0.1', allowedHosts: [host('cairn.example.com'), host('build.internal:8443')] };
    expect(isAllowedHost(host('cairn.example.com'), onPort(3090), policy)).toBe(true);
    expect(isAllowedHost(host('Cairn.Example.com:443'), onPort(3090), policy)).toBe(true);
    expect(isAllowedHost(host('build.internal:8443'), onPort(3090), policy)).toBe(true);
    expect(isAllowedHost(host('build.internal:3090'), onPort(3090), policy)).toBe(false);
    expect(isAllowedHost(host('sub.cairn.example.com'), onPort(3090), policy)).toBe(false);
  });

  it.each(['', 'evil.example/path', 'user@localhost:3090', 'localhost:99999', 'local host', '[not-v6]:3090', 'localhost:3090, evil'])(
    'does not parse %j as a host',
    (text) => {
      expect(parseHostAndPort(text)).toBeUndefined();
    },
  );

  it('reads the allowed-hosts setting, naming a bad entry and the setting', () => {
    expect(parseAllowedHosts(['a.example', ' b.example:81 ', ''], 'CAIRN_ALLOWED_HOSTS')).toEqual({
      hosts: [{ hostname: 'a.example', port: undefined }, { hostname: 'b.example', port: 81 }],
    });
    expect(parseAllowedHosts(['http://a.example'], 'CAIRN_ALLOWED_HOSTS').problem).toMatch(/^CAIRN_ALLOWED_HOSTS: 'http:\/\/a.example' is not a host name/);
  });

  it('tells loopback listen addresses from the ones other machines reach', () => {
    for (const address of ['127.0.0.1', 'localhost', '::1', '[::1]', '127.0.1.1']) expect(listensBeyondLoopback(address)).toBe(false);
    for (const address of ['0.0.0.0', '::', '', '192.168.1.20', 'cairn.lan', 'fd00::5']) expect(listensBeyondLoopback(address)).toBe(true);
  });
});

describe('where a state-changing request comes from', () => {
  const own = host('127.0.0.1:3090');
  const none: CallerHeaders = { origin: undefined, secFetchSite: undefined, referer: undefined, contentType: undefined };
  const decide = (headers: Partial<CallerHeaders>, allowed: HostAndPort[] = []) => decideOrigin({ ...none, ...headers }, own, allowed);

  it('checks writes only', () => {
    expect(['POST', 'PUT', 'PATCH', 'DELETE'].map(isStateChanging)).toEqual([true, true, true, true]);
    expect(['GET', 'HEAD', 'OPTIONS'].map(isStateChanging)).toEqual([false, false, false]);
  });

  it.each([
    [{}, 'no browser headers at all: the CLI, curl, a script'],
    [{ contentType: 'multipart/form-data; boundary=x' }, 'a multipart body without browser headers'],
    [{ origin: 'http://127.0.0.1:3090' }, 'its own origin'],
    [{ origin: 'http://127.0.0.1:3090', contentType: 'multipart/form-data; boundary=x' }, 'its own origin, multipart'],
    [{ origin: 'https://127.0.0.1:3090' }, 'its own Host through a TLS proxy'],
    [{ secFetchSite: 'same-origin' }, 'Sec-Fetch-Site: same-origin, no body'],
    [{ secFetchSite: 'none', contentType: 'application/json' }, 'a user-initiated JSON request'],
    [{ referer: 'http://127.0.0.1:3090/page?x=1' }, 'a Referer of its own origin'],
  ] as [Partial<CallerHeaders>, string][])('lets through %j (%s)', (headers) => {
    expect(decide(headers)).toEqual({ allowed: true });
  });

  it.each([
    [{ origin: 'http://evil.example' }, /Origin: http:\/\/evil\.example/],
    [{ origin: 'http://localhost:3090' }, /Origin: http:\/\/localhost:3090/],
    [{ origin: 'http://127.0.0.1:3091' }, /Origin/],
    [{ origin: 'null' }, /Origin: null/],
    [{ origin: 'file://' }, /Origin/],
    [{ origin: 'not a url' }, /Origin/],
    [{ origin: 'http://evil.example', secFetchSite: 'same-origin' }, /Origin/],
    [{ secFetchSite: 'cross-site' }, /Sec-Fetch-Site: cross-site/],
    [{ secFetchSite: 'same-site', contentType: 'application/json' }, /Sec-Fetch-Site: same-site/],
    [{ referer: 'http://evil.example/attack?token=secret' }, /Referer: http:\/\/evil\.example\)/],
    [{ secFetchSite: 'none' }, /a browser sent it \(no body\)/],
    [{ secFetchSite: 'none', contentType: 'multipart/form-data; boundary=x' }, /\(multipart\/form-data\)/],
    [{ secFetchSite: 'none', contentType: 'text/plain' }, /\(text\/plain\)/],
  ] as [Partial<CallerHeaders>, RegExp][])('refuses %j', (headers, why) => {
    const verdict = decide(headers);
    expect(verdict.allowed).toBe(false);
    expect(verdict.allowed === false && verdict.why).toMatch(why);
    // A Referer's path and query are never quoted back.
    expect(JSON.stringify(verdict)).not.toContain('token=secret');
  });

  it('counts a configured name as the server’s own origin, at the entry’s port if it names one', () => {
    expect(decide({ origin: 'https://cairn.example.com' }, [host('cairn.example.com')])).toEqual({ allowed: true });
    expect(decide({ origin: 'https://cairn.example.com:8443' }, [host('cairn.example.com:8443')])).toEqual({ allowed: true });
    expect(decide({ origin: 'https://cairn.example.com' }, [host('cairn.example.com:8443')]).allowed).toBe(false);
  });
});
