// Which paths are tests (never repaired by the engine, never counted as the fault).
const TEST_PATH =
  /(^|\/)(tests?|__tests__|spec)\/|(^|\/)(test_[^/]*\.py|[^/]*_test\.py|conftest\.py|[^/]*\.(test|spec)\.[cm]?[jt]sx?|[^/]*_test\.go)$/;

export function isTestFile(path: string): boolean {
  return TEST_PATH.test(path.replaceAll("\\", "/"));
}
