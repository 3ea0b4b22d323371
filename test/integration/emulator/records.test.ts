import { describe, expect, it } from "vitest";
import { DocumentedRecordDocument, DocumentedRecordMethodResult } from "../../../src/api";
import { errorTitle, useTestEmulator } from "../../helpers/emulator-http";

const emu = useTestEmulator();
const { call } = emu;

describe("generic record server", () => {
  it("gets a record of a class with api_access", async () => {
    const res = await call("GET", "/api/v1/Page/12");
    expect(res.status).toBe(200);
    const doc = DocumentedRecordDocument.parse(res.body);
    expect(doc).toMatchObject({ ID: "12", ClassName: "Page", Title: "Home", IsPublished: false });
  });

  it("runs a method on a record and keeps its effect", async () => {
    const res = await call("POST", "/api/v1/Page/12/publish");
    expect(res.status).toBe(200);
    expect(DocumentedRecordMethodResult.parse(res.body)).toMatchObject({ method: "publish", result: "ok" });
    expect(DocumentedRecordDocument.parse((await call("GET", "/api/v1/Page/12")).body)["IsPublished"]).toBe(
      true,
    );
  });

  it.each([
    ["POST", "/api/v1/Page/12/frobnicate", "Action 'frobnicate' isn't available on class Page."],
    ["GET", "/api/v1/Page/12/Children", "Action 'Children' isn't available on class Page."],
    ["GET", "/api/v1/Page?Title=Home", "Action 'search' isn't available on class Page."],
    ["PUT", "/api/v1/Page/12", "Action 'update' isn't available on class Page."],
    ["DELETE", "/api/v1/Page/12", "Action 'delete' isn't available on class Page."],
    ["PUT", "/api/v1/Page/12/Children", "Action 'Children' isn't available on class Page."],
    ["POST", "/api/v1/Page/12/Children/3", "Action 'Children' isn't available on class Page."],
    ["DELETE", "/api/v1/Page/12/Children/3", "Action 'Children' isn't available on class Page."],
  ])("answers %s %s as a missing action", async (method, path, title) => {
    const res = await call(method, path);
    expect(res.status).toBe(404);
    expect(errorTitle(res)).toBe(title);
  });

  it("hides classes without api_access and unknown records", async () => {
    const hidden = await call("GET", "/api/v1/SiteConfig/1");
    expect(hidden.status).toBe(404);
    expect(errorTitle(hidden)).toBe("Class 'SiteConfig' isn't available through the API.");
    const missing = await call("GET", "/api/v1/Page/99");
    expect(errorTitle(missing)).toBe("Record Page #99 not found.");
  });

  it("requires credentials", async () => {
    expect((await call("GET", "/api/v1/Page/12", { as: null })).status).toBe(401);
  });
});
