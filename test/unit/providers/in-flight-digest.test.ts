import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { inputsDigest } from "../../../providers/plugin-host/protocol";

// The digest that tells a suspect create (one a killed run may have sent) from a new one.
describe("the digest of a create's inputs", () => {
  const restore = { stack: "acme-web", environment: "uat", snapshot_id: "13", mode: "db", trigger: "t0" };

  it("is the same whatever the order of keys, the provider text or the wait bound", () => {
    const reordered = Object.fromEntries(Object.entries(restore).reverse());
    expect(inputsDigest({ ...reordered, __provider: "another build", timeout_seconds: 60 })).toBe(
      inputsDigest({ ...restore, __provider: "exports.handler = ..." }),
    );
  });

  it("changes with any input that changes what the create does, a new trigger included", () => {
    fc.assert(
      fc.property(fc.constantFrom(...Object.entries(restore)), fc.string(), ([key, old], value) => {
        fc.pre(value !== old);
        expect(inputsDigest({ ...restore, [key]: value })).not.toBe(inputsDigest(restore));
      }),
    );
  });

  it("tells nested values apart, not only top-level ones", () => {
    expect(inputsDigest({ args: { a: 1, b: [1, 2] } })).toBe(inputsDigest({ args: { b: [1, 2], a: 1 } }));
    expect(inputsDigest({ args: { a: 1, b: [1, 2] } })).not.toBe(inputsDigest({ args: { a: 1, b: [2, 1] } }));
  });
});
