import { describe, expect, it } from "vitest";
import {
  REF_TYPES as API_REF_TYPES,
  REF_TYPES_WITHOUT_REF as API_WITHOUT_REF,
  SNAPSHOT_MODES as API_MODES,
} from "../../../src/api";
import { REF_TYPES, REF_TYPES_WITHOUT_REF, SNAPSHOT_MODES } from "../../../src/config";

// src/config may not import src/api (design.md §1), so it keeps its own copy of the few enums
// it needs; this test is what keeps the copies equal.
describe("the config enums", () => {
  it("list the same ref types as the wire contract", () => {
    expect(REF_TYPES).toEqual(API_REF_TYPES);
    expect(REF_TYPES_WITHOUT_REF).toEqual(API_WITHOUT_REF);
  });

  it("list the same snapshot modes as the wire contract", () => {
    expect(SNAPSHOT_MODES).toEqual(API_MODES);
  });
});
