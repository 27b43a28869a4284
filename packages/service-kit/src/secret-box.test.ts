import { SecretBox, SecretBoxError } from './secret-box';

describe('SecretBox', () => {
  const box = SecretBox.fromSetting(SecretBox.generateSetting('k2'));

  it('when a value is sealed, then it opens to the same bytes and hides the plaintext', () => {
    const sealed = box.seal('pin-1234', 'tenant:acme');
    expect(sealed).not.toContain('pin-1234');
    expect(box.openText(sealed, 'tenant:acme')).toBe('pin-1234');
    expect(SecretBox.keyIdOf(sealed)).toBe('k2');
  });

  it('when the context differs or the ciphertext is altered, then opening fails', () => {
    const sealed = box.seal('x', 'a');
    expect(() => box.open(sealed, 'b')).toThrow(SecretBoxError);
    const parts = sealed.split('.');
    // Flip every bit of the ciphertext: a fixed replacement equals the real byte once in 256 runs.
    const ciphertext = Buffer.from(parts[4]!, 'base64');
    parts[4] = Buffer.from(ciphertext.map((byte) => byte ^ 0xff)).toString('base64');
    expect(() => box.open(parts.join('.'), 'a')).toThrow(SecretBoxError);
  });

  it('when the tag is truncated to a prefix of the genuine one (issue 11.13), then opening refuses it', () => {
    const sealed = box.seal('pin-1234', 'ctx');
    const parts = sealed.split('.');
    const tag = Buffer.from(parts[3]!, 'base64');
    expect(tag).toHaveLength(16);
    for (const length of [4, 8, 12, 15]) {
      parts[3] = tag.subarray(0, length).toString('base64');
      // Without a pinned tag length node:crypto authenticates these prefixes; a forger needs ~2^32 tries.
      expect(() => box.open(parts.join('.'), 'ctx')).toThrow(/failed authentication/);
    }
    parts[3] = Buffer.concat([tag, Buffer.alloc(1)]).toString('base64');
    expect(() => box.open(parts.join('.'), 'ctx')).toThrow(/failed authentication/);
    parts[3] = tag.toString('base64');
    expect(box.openText(parts.join('.'), 'ctx')).toBe('pin-1234');
  });

  it('when keys rotate, then old values still open and new ones use the new key', () => {
    const old = SecretBox.fromSetting(SecretBox.generateSetting('k1'));
    const sealedOld = old.seal('s');
    const oldSetting = `k1:${Buffer.from((old as unknown as { keys: Map<string, Buffer> }).keys.get('k1')!).toString('base64')}`;
    const rotated = SecretBox.fromSetting(`${SecretBox.generateSetting('k2')},${oldSetting}`);
    expect(rotated.openText(sealedOld)).toBe('s');
    expect(rotated.needsReseal(sealedOld)).toBe(true);
    expect(SecretBox.keyIdOf(rotated.seal('s'))).toBe('k2');
  });

  it('when a key is not 32 bytes, then it is refused', () => {
    expect(() => SecretBox.fromSetting('k1:c2hvcnQ=')).toThrow(/32 bytes/);
  });
});
