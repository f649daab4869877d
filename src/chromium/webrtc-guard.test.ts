// What the WebRTC wrapper decides on: the host and port of an ICE server's URL or a reported
// remote candidate, as the http URL the URL policy checks.
import { describe, expect, it } from 'vitest';
import { UrlPolicy } from '../security/url-policy';
import { allowedByRules } from './websocket-guard';
import { webRtcCheckUrl } from './webrtc-guard';

describe('webRtcCheckUrl', () => {
  it.each([
    ['stun:stun.example.org:3478', 'http://stun.example.org:3478/'],
    ['stun:stun.example.org', 'http://stun.example.org/'],
    ['STUNS:Stun.Example.org:5349', 'http://Stun.Example.org:5349/'],
    ['turn:203.0.113.7:3478?transport=tcp', 'http://203.0.113.7:3478/'],
    ['turns:turn.example.org?transport=tcp', 'http://turn.example.org/'],
    ['stun:[2001:db8::1]:3478', 'http://[2001:db8::1]:3478/'],
    ['udp://127.0.0.2:5000', 'http://127.0.0.2:5000/'],
    ['tcp://[::1]:9', 'http://[::1]:9/'],
    ['udp://4f3c0b4e-7c1a-4a6b-9a0e-2f1d2c3b4a5f.local:56000', 'http://4f3c0b4e-7c1a-4a6b-9a0e-2f1d2c3b4a5f.local:56000/'],
  ])('reads %s as %s', (target, url) => {
    expect(webRtcCheckUrl(target)).toBe(url);
  });

  it.each(['stun:', 'turn::3478', 'http://example.org/', 'stun:host:port', 'ws://example.org/'])('reads %s as naming no host', (target) => {
    expect(webRtcCheckUrl(target)).toBeUndefined();
  });

  it('gives the policy the host to decide on, in its normal form', () => {
    const rules = new UrlPolicy({ deny: ['127.0.0.2', 'turn.example.org'] }).toRules();
    expect(allowedByRules(rules, webRtcCheckUrl('stun:0x7f.0.0.2:3478')!)).toBe(false);
    expect(allowedByRules(rules, webRtcCheckUrl('turns:TURN.example.org.:443')!)).toBe(false);
    expect(allowedByRules(rules, webRtcCheckUrl('stun:stun.example.org:3478')!)).toBe(true);
  });
});
