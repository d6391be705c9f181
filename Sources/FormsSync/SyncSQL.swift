import FormsCore
import Foundation

/// The SQL of a synced schema, as text (pure; `sync init` runs it): one table per kind, one typed
/// view per kind and version, a trigger that keeps each row's revision, and a table that marks
/// the schema as formsctl's (DESIGN §13).
public enum SyncSQL {
  /// The format of the tables this formsctl writes (in `formsctl_meta`).
  public static let format = "1"

  /// The columns of a kind's table and their types as `information_schema` names them.
  public static let columns: [(name: String, type: String)] = [
    ("id", "text"), ("schema_version", "text"), ("document", "jsonb"), ("canonical", "text"),
    ("content_sha256", "text"), ("revision", "bigint"), ("updated_at", "timestamp with time zone"),
    ("updated_by", "text"),
  ]

  /// `name` as an SQL identifier: double-quoted, its quotes doubled.
  public static func identifier(_ name: String) -> String {
    "\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\""
  }

  /// `text` as an SQL string literal.
  public static func literal(_ text: String) -> String { "'" + text.replacingOccurrences(of: "'", with: "''") + "'" }

  /// A schema name formsctl accepts: lower-case letters, digits and `_`, not starting with a digit.
  public static func isSchemaName(_ name: String) -> Bool {
    guard let first = name.unicodeScalars.first, !name.isEmpty, name.count <= 63 else { return false }
    let allowed = { (c: Unicode.Scalar) in ("a"..."z").contains(c) || ("0"..."9").contains(c) || c == "_" }
    return !("0"..."9").contains(first) && name.unicodeScalars.allSatisfy(allowed)
  }

  /// The table of `kind` (`purchase-order` → `purchase_order`).
  public static func table(_ kind: String) -> String { kind.replacingOccurrences(of: "-", with: "_") }

  /// The view of one version (`purchase_order_v1_1_0`).
  public static func view(_ kind: String, _ version: SemanticVersion) -> String {
    table(kind) + "_v" + version.description.replacingOccurrences(of: ".", with: "_")
  }

  /// `schema.table`, quoted.
  public static func qualified(_ schema: String, _ name: String) -> String {
    identifier(schema) + "." + identifier(name)
  }

  /// The statements of `sync init`, in order. Every one may run again: tables and the schema are
  /// created when missing, the trigger function replaced, views and the enum checks dropped and
  /// made again (they hold no data).
  public static func initialize(schema: String, kinds: [(kind: String, versions: [Schema])]) -> [String] {
    var statements = [
      "CREATE SCHEMA IF NOT EXISTS \(identifier(schema))",
      "CREATE TABLE IF NOT EXISTS \(qualified(schema, "formsctl_meta")) (key text PRIMARY KEY, value text NOT NULL)",
      """
      INSERT INTO \(qualified(schema, "formsctl_meta")) (key, value) VALUES ('format', \(literal(format)))
      ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value
      """,
      // A row's revision counts its changes; a change to the jsonb alone (an SQL writer) clears
      // the canonical text and its hash, so sync takes the jsonb for what it says.
      """
      CREATE OR REPLACE FUNCTION \(qualified(schema, "formsctl_touch"))() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF TG_OP = 'UPDATE' THEN
          NEW.revision := OLD.revision + 1;
          IF NEW.canonical IS NOT DISTINCT FROM OLD.canonical AND NEW.document IS DISTINCT FROM OLD.document THEN
            NEW.canonical := NULL;
          END IF;
          IF NEW.updated_by IS NOT DISTINCT FROM OLD.updated_by AND NEW.canonical IS NULL THEN
            NEW.updated_by := current_user;
          END IF;
        END IF;
        IF NEW.canonical IS NULL THEN NEW.content_sha256 := NULL; END IF;
        NEW.updated_at := now();
        RETURN NEW;
      END $$
      """,
    ]
    for (kind, versions) in kinds {
      let table = qualified(schema, Self.table(kind))
      statements += [
        """
        CREATE TABLE IF NOT EXISTS \(table) (
          id text PRIMARY KEY,
          schema_version text NOT NULL,
          document jsonb NOT NULL,
          canonical text,
          content_sha256 text,
          revision bigint NOT NULL DEFAULT 1,
          updated_at timestamptz NOT NULL DEFAULT now(),
          updated_by text NOT NULL DEFAULT current_user
        )
        """,
        "DROP TRIGGER IF EXISTS formsctl_touch ON \(table)",
        """
        CREATE TRIGGER formsctl_touch BEFORE INSERT OR UPDATE ON \(table)
        FOR EACH ROW EXECUTE FUNCTION \(qualified(schema, "formsctl_touch"))()
        """,
        "ALTER TABLE \(table) DROP CONSTRAINT IF EXISTS \(identifier(Self.table(kind) + "_enums"))",
      ]
      if let check = enumCheck(versions) {
        statements.append(
          "ALTER TABLE \(table) ADD CONSTRAINT \(identifier(Self.table(kind) + "_enums")) CHECK (\(check)) NOT VALID")
      }
      for version in versions {
        let view = qualified(schema, Self.view(kind, version.version))
        statements += ["DROP VIEW IF EXISTS \(view)", "CREATE VIEW \(view) AS \(select(version, from: table))"]
      }
    }
    return statements
  }

  /// The typed columns of a version's top-level scalar fields (sensitive ones left out).
  public static func typedColumns(_ schema: Schema) -> [(name: String, sql: String)] {
    schema.root.fieldOrder.compactMap { name -> (String, String)? in
      guard let field = schema.root.fields[name], !field.sensitive else { return nil }
      let text = "(document->>\(literal(name)))"
      switch field.type.kind {
      case .string, .uuid, .enumeration: return (name, text)
      case .integer, .decimal, .number: return (name, text + "::numeric")
      case .boolean: return (name, text + "::boolean")
      case .date: return (name, text + "::date")
      case .datetime: return (name, text + "::timestamptz")
      default: return nil
      }
    }
  }

  /// A version's view: the row's id, version and stamps, then its typed columns.
  static func select(_ schema: Schema, from table: String) -> String {
    let reserved: Set<String> = ["id", "schema_version", "updated_at", "updated_by", "revision"]
    let typed = typedColumns(schema).filter { !reserved.contains($0.name) }.map {
      "\($0.sql) AS \(identifier($0.name))"
    }
    return (["SELECT id", "schema_version", "revision", "updated_at", "updated_by"] + typed).joined(separator: ", ")
      + " FROM \(table) WHERE schema_version = \(literal(schema.version.description))"
  }

  /// Each version's top-level enums, as one check: a row of that version holds one of the values
  /// (or no value) in each.
  static func enumCheck(_ versions: [Schema]) -> String? {
    let parts = versions.compactMap { schema -> String? in
      let enums = schema.root.fieldOrder.compactMap { name -> String? in
        guard let field = schema.root.fields[name], field.type.kind == .enumeration, !field.type.values.isEmpty else {
          return nil
        }
        let values = field.type.values.map(literal).joined(separator: ", ")
        return "(document->>\(literal(name)) IS NULL OR document->>\(literal(name)) IN (\(values)))"
      }
      guard !enums.isEmpty else { return nil }
      return "(schema_version <> \(literal(schema.version.description)) OR (\(enums.joined(separator: " AND "))))"
    }
    return parts.isEmpty ? nil : parts.joined(separator: " AND ")
  }
}
