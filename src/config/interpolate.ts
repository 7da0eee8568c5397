// `${VAR}`, `${VAR:-default}` and `${VAR-default}` in one string, the way a shell or Docker Compose reads
// them; `$${` is a literal `${`. Applied to parsed scalar values only, so a variable can never inject YAML.

export interface InterpolationProblem {
  /** Index in the input text where the offending reference starts. */
  index: number;
  variable?: string;
  message: string;
}

export interface Interpolated {
  value: string;
  problems: InterpolationProblem[];
}

const REFERENCE = /\$\$\{|\$\{([^}]*)\}|\$\{/g;
const INNER = /^([A-Za-z_][A-Za-z0-9_]*)(?:(:?-)([\s\S]*))?$/;

export function interpolate(text: string, env: NodeJS.ProcessEnv): Interpolated {
  const problems: InterpolationProblem[] = [];
  const value = text.replace(REFERENCE, (match: string, inner: string | undefined, index: number) => {
    if (match === "$${") return "${";
    if (inner === undefined) {
      problems.push({
        index,
        message: `unterminated "\${" (close it with "}", or write "$\${" for a literal "\${")`,
      });
      return match;
    }
    const parts = INNER.exec(inner);
    if (!parts) {
      problems.push({
        index,
        message: `"\${${inner}}" is not a variable reference (use \${NAME} or \${NAME:-default})`,
      });
      return match;
    }
    const [, name, operator, fallback] = parts as unknown as [
      string,
      string,
      string | undefined,
      string | undefined,
    ];
    const current = env[name];
    if (operator === ":-") return current === undefined || current === "" ? (fallback ?? "") : current;
    if (operator === "-") return current ?? fallback ?? "";
    if (current !== undefined) return current;
    problems.push({
      index,
      variable: name,
      message: `environment variable ${name} is not set (use \${${name}:-default} for a default)`,
    });
    return "";
  });
  return { value, problems };
}
