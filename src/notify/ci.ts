import type { CiRun } from "../api";

/**
 * The CI run that runs this process, from the variables GitHub Actions and GitLab CI set; none
 * elsewhere. Only links are built: no other variable is read.
 */
export function ciRunOf(env: Readonly<Record<string, string | undefined>>): CiRun | undefined {
  const set = (name: string) => {
    const value = env[name];
    return value === undefined || value === "" ? undefined : value;
  };
  if (set("GITHUB_ACTIONS") === "true") {
    const server = set("GITHUB_SERVER_URL") ?? "https://github.com";
    const repository = set("GITHUB_REPOSITORY");
    const run = set("GITHUB_RUN_ID");
    if (repository !== undefined && run !== undefined) {
      const attempt = set("GITHUB_RUN_ATTEMPT");
      const url = `${server.replace(/\/+$/, "")}/${repository}/actions/runs/${run}${attempt === undefined ? "" : `/attempts/${attempt}`}`;
      return { provider: "github", url };
    }
  }
  if (set("GITLAB_CI") === "true") {
    const url = set("CI_JOB_URL") ?? set("CI_PIPELINE_URL");
    if (url !== undefined) return { provider: "gitlab", url };
  }
  return undefined;
}
