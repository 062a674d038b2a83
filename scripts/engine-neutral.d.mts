/** Repository-relative paths (`test/…`) of the test files marked `// @engine-neutral: why`. */
export function engineNeutralTestFiles(): string[];
