import { describe, expect, it } from "vitest";
import { formatErrorLine, validateStackFile } from "../../../src/config";

const file = (promotion: string) => `stack: shop
environments:
  uat:
    deployment: { ref_type: branch, ref: main }
  prod:
    deployment: { ref_type: tag, ref: v1 }
    promotion: ${promotion}
`;

const errors = (promotion: string) =>
  validateStackFile("stacks-config/shop.yaml", file(promotion)).errors.map(formatErrorLine);

describe("an environment's promotion rule", () => {
  it("reads from and min_soak, the soak in seconds, longer than a day if asked", () => {
    const ok = validateStackFile("stacks-config/shop.yaml", file("{ from: uat, min_soak: 72h }"));
    expect(ok.errors).toEqual([]);
    expect(ok.stack?.environments["prod"]?.promotion).toEqual({ from: "uat", min_soak: 72 * 3600 });
    expect(
      validateStackFile("stacks-config/shop.yaml", file("{ from: uat }")).stack?.environments["prod"]
        ?.promotion,
    ).toEqual({ from: "uat" });
  });

  it("refuses a from that names no environment of the file, or the environment itself, at its line", () => {
    expect(errors("{ from: staging }")).toEqual([
      "stacks-config/shop.yaml:7:24: environments.prod.promotion.from: names 'staging', which is not an environment of this file (uat)",
    ]);
    expect(errors("{ from: prod }")[0]).toContain(
      "environments.prod.promotion.from: names 'prod' itself; name the environment whose builds are promoted here (uat)",
    );
  });

  it("refuses a soak with no unit, or outside 1m to 720h", () => {
    expect(errors("{ from: uat, min_soak: 7200 }")[0]).toContain("environments.prod.promotion.min_soak:");
    expect(errors("{ from: uat, min_soak: 721h }")[0]).toContain(
      "must be between 1m and 720h (30 days); got '721h' (2595600 seconds)",
    );
    expect(errors("{ from: uat, min_soak: 30s }")[0]).toContain("must be between 1m and 720h");
  });
});
