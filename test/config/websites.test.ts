import { describe, expect, it } from "vitest";
import { issues, load, yaml } from "./helpers.js";

const websites = (...lines: string[]) => yaml("websites:", ...lines);

describe("declared websites", () => {
  it("fills each item from websites.defaults, then the service's defaults", () => {
    const { config } = load(
      websites(
        "  mode: observe",
        "  prune: true",
        "  max_deletes: 0",
        "  defaults: { privacy: public, email: 1, exclude_params: [utm_source, ' ref '] }",
        "  items:",
        "    - domain: example.com",
        "    - domain: b.example.com",
        "      privacy: 2",
        "      password: 1234",
        "      email: false",
        "      exclude_bots: 'false'",
        '      exclude_params: "a\\n\\n b \\n"',
        "      exclude_ips: [10.0.0.1, '', 10.0.0.2]",
      ),
    );
    expect(config.websites.mode).toBe("observe");
    expect(config.websites.prune).toBe(true);
    expect(config.websites.max_deletes).toBe(0);
    expect(config.websites.items).toEqual([
      {
        domain: "example.com",
        declared_domain: "example.com",
        privacy: 0,
        email: 1,
        exclude_bots: 1,
        exclude_params: ["utm_source", "ref"],
        exclude_ips: [],
      },
      {
        domain: "b.example.com",
        declared_domain: "b.example.com",
        privacy: 2,
        password: "1234",
        email: 0,
        exclude_bots: 0,
        exclude_params: ["a", "b"],
        exclude_ips: ["10.0.0.1", "10.0.0.2"],
      },
    ]);
  });

  it("maps privacy names and codes to 0, 1, 2", () => {
    const { config } = load(
      websites(
        "  items:",
        "    - { domain: a.example.com, privacy: public }",
        "    - { domain: b.example.com, privacy: private }",
        "    - { domain: c.example.com, privacy: password, password: pw }",
        "    - { domain: d.example.com, privacy: 0 }",
        "    - { domain: e.example.com, privacy: '1' }",
        "    - { domain: f.example.com }",
      ),
    );
    expect(config.websites.items.map((item) => item.privacy)).toEqual([0, 1, 2, 0, 1, 1]);
  });

  it("refuses an unknown privacy name", () => {
    expect(issues(websites("  items:", "    - domain: a.example.com", "      privacy: secret"))).toEqual([
      'config.yaml:10:16: websites.items[0].privacy (website "a.example.com"): unknown privacy "secret" (use public, private or password, or 0, 1, 2)',
    ]);
    expect(issues(websites("  defaults: { privacy: 3 }"))).toEqual([
      'config.yaml:8:24: websites.defaults.privacy: unknown privacy "3" (use public, private or password, or 0, 1, 2)',
    ]);
  });

  it("refuses a password when the privacy is not password", () => {
    expect(
      issues(
        websites(
          "  items:",
          "    - domain: a.example.com",
          "      privacy: public",
          "      password: hunter22",
        ),
      ),
    ).toEqual([
      'config.yaml:11:17: websites.items[0].password (website "a.example.com"): a password applies only when privacy is password (2)',
    ]);
    expect(issues(websites("  defaults: { privacy: private, password: hunter22 }"))).toEqual([
      "config.yaml:8:43: websites.defaults.password: a password applies only when privacy is password (2)",
    ]);
  });

  it("requires a password when the effective privacy is password", () => {
    expect(issues(websites("  items:", "    - domain: a.example.com", "      privacy: password"))).toEqual([
      'config.yaml:9:7: websites.items[0].password (website "a.example.com"): is required when privacy is password (2); set it here or under websites.defaults',
    ]);
    expect(
      issues(websites("  defaults: { privacy: password }", "  items:", "    - domain: a.example.com")),
    ).toEqual([
      'config.yaml:10:7: websites.items[0].password (website "a.example.com"): is required when privacy is password (2); set it here or under websites.defaults',
    ]);
  });

  it("takes a default password only where the privacy is password", () => {
    const { config } = load(
      websites(
        "  defaults: { password: shared-secret }",
        "  items:",
        "    - { domain: a.example.com, privacy: password }",
        "    - { domain: b.example.com, privacy: public }",
      ),
    );
    expect(config.websites.items[0]?.password).toBe("shared-secret");
    expect(config.websites.items[1]?.password).toBeUndefined();
  });

  it("refuses a password longer than the service takes", () => {
    expect(
      issues(
        websites(
          "  items:",
          "    - domain: a.example.com",
          "      privacy: password",
          `      password: ${"x".repeat(129)}`,
        ),
      ),
    ).toEqual([
      'config.yaml:11:17: websites.items[0].password (website "a.example.com"): must be at most 128 characters',
    ]);
  });
});

describe("website domains", () => {
  it("normalises a domain and warns about the rewrite", () => {
    const loaded = load(
      websites(
        "  items:",
        "    - domain: a.example.com",
        "    - domain: b.example.com",
        "    - domain: c.example.com",
        '    - domain: "https://www.Example.com/"',
      ),
    );
    expect(loaded.config.websites.items[3]).toMatchObject({
      domain: "example.com",
      declared_domain: "https://www.Example.com/",
    });
    expect(loaded.warnings).toEqual([
      {
        file: "config.yaml",
        line: 12,
        column: 15,
        path: "websites.items[3].domain",
        message: '"https://www.Example.com/" is normalised to "example.com"',
      },
    ]);
  });

  it("refuses two items with the same normalised domain, naming both lines", () => {
    expect(
      issues(
        websites(
          "  items:",
          "    - domain: www.example.com",
          "    - domain: other.example.com",
          "    - domain: http://EXAMPLE.com./path",
        ),
      ),
    ).toEqual([
      'config.yaml:11:15: websites.items[2].domain: domain "example.com" is declared twice: line 9 (websites.items[0].domain) and line 11 (websites.items[2].domain)',
    ]);
  });

  it("refuses what is not a hostname", () => {
    expect(
      issues(
        websites(
          "  items:",
          "    - domain: localhost",
          "    - domain: exa_mple.com",
          "    - domain: a..b.com",
          `    - domain: ${"a".repeat(250)}.com`,
        ),
      ),
    ).toEqual([
      'config.yaml:9:15: websites.items[0].domain: "localhost" is not a valid domain: it needs at least one dot',
      'config.yaml:10:15: websites.items[1].domain: "exa_mple.com" is not a valid domain: it has an invalid label "exa_mple" (letters, digits and inner hyphens only, at most 63 characters)',
      'config.yaml:11:15: websites.items[2].domain: "a..b.com" is not a valid domain: it has an empty label (two dots in a row)',
      `config.yaml:12:15: websites.items[3].domain: "${"a".repeat(250)}.com" is not a valid domain: it has an invalid label "${"a".repeat(250)}" (letters, digits and inner hyphens only, at most 63 characters)`,
    ]);
  });
});

describe("declared lists checked when the config is read", () => {
  it("refuses exclude_ips that are not addresses or CIDR ranges, naming line and column", () => {
    expect(
      issues(
        websites(
          "  items:",
          "    - domain: a.example.com",
          "      exclude_ips: [10.0.0.0/33, 999.1.1.1, not-an-ip, 203.0.113.0/24, '2001:db8::/129', '2001:db8::1']",
        ),
      ),
    ).toEqual([
      'config.yaml:10:21: websites.items[0].exclude_ips[0] (website "a.example.com"): "10.0.0.0/33" is not a CIDR range: the prefix of an IPv4 range is 0 to 32',
      'config.yaml:10:34: websites.items[0].exclude_ips[1] (website "a.example.com"): "999.1.1.1" is not an IP address or CIDR range: expected an IPv4 or IPv6 address or a CIDR range like "203.0.113.0/24"',
      'config.yaml:10:45: websites.items[0].exclude_ips[2] (website "a.example.com"): "not-an-ip" is not an IP address or CIDR range: expected an IPv4 or IPv6 address or a CIDR range like "203.0.113.0/24"',
      'config.yaml:10:72: websites.items[0].exclude_ips[4] (website "a.example.com"): "2001:db8::/129" is not a CIDR range: the prefix of an IPv6 range is 0 to 128',
    ]);
  });

  it("accepts IPv4 and IPv6 addresses and ranges", () => {
    const { config } = load(
      websites(
        "  defaults:",
        "    exclude_ips: [203.0.113.7, 198.51.100.0/24, '2001:db8::1', '2001:db8::/32']",
      ),
    );
    expect(config.websites.defaults.exclude_ips).toEqual([
      "203.0.113.7",
      "198.51.100.0/24",
      "2001:db8::1",
      "2001:db8::/32",
    ]);
  });

  it("refuses a list entry with a line break instead of splitting it in two", () => {
    expect(
      issues(
        websites(
          "  defaults:",
          '    exclude_params: [utm_source, "ref\\nsrc"]',
          '    exclude_ips: ["10.0.0.1\\n10.0.0.2"]',
        ),
      ),
    ).toEqual([
      'config.yaml:9:34: websites.defaults.exclude_params[1]: "ref\\nsrc" contains a line break; write each entry as its own list item',
      'config.yaml:10:19: websites.defaults.exclude_ips[0]: "10.0.0.1\\n10.0.0.2" contains a line break; write each entry as its own list item',
    ]);
  });

  it("refuses exclude_params with whitespace inside an entry", () => {
    expect(issues(websites("  defaults:", "    exclude_params: [utm_source, 'utm medium']"))).toEqual([
      'config.yaml:9:34: websites.defaults.exclude_params[1]: "utm medium" contains whitespace: expected a query parameter name like "utm_source"',
    ]);
  });
});
