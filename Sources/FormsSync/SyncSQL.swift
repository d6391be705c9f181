import FormsCore
import Foundation

/// The SQL of a synced schema, as text (pure; `sync init` runs it): one table per kind, one typed
/// view per kind and version, a trigger that keeps each row's revision, and a table that marks
/// the schema as formsctl's (docs/design.md §13).
public enum SyncSQL {
  /// The format of the tables this formsctl writes (in `formsctl_meta`).
  public static let format = "3"

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
      // Revisions come from one sequence: a row deleted and inserted again, or a revision set
      // by hand, never repeats one that sync recorded.
      "CREATE SEQUENCE IF NOT EXISTS \(qualified(schema, "formsctl_revision"))",
      // The trigger keeps a row's columns telling one story, whatever an SQL writer sets: a new
      // revision on every change; the jsonb made from `canonical` when only that changed (or an
      // insert gave no jsonb); the canonical text and its hash cleared when the jsonb changed
      // without them; `schema_version` taken from the document's `_schema`.
      """
      CREATE OR REPLACE FUNCTION \(qualified(schema, "formsctl_touch"))() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        NEW.revision := nextval(\(literal(schema + ".formsctl_revision"))::regclass);
        -- The author is the role that logged in (session_user), whatever the writer claims:
        -- only formsctl's own statements (which set formsctl.author to the name they write)
        -- name their store's user. A name the writer claimed is kept beside the role.
        IF NEW.updated_by IS DISTINCT FROM nullif(current_setting('formsctl.author', true), '') THEN
          IF NEW.updated_by IS NULL OR NEW.updated_by = session_user
            OR (TG_OP = 'UPDATE' AND NEW.updated_by IS NOT DISTINCT FROM OLD.updated_by)
            OR (TG_OP = 'INSERT' AND NEW.updated_by = current_user) THEN
            NEW.updated_by := session_user;
          ELSE
            NEW.updated_by := session_user || ' (claimed ' || NEW.updated_by || ')';
          END IF;
        END IF;
        IF TG_OP = 'UPDATE' THEN
          IF NEW.canonical IS DISTINCT FROM OLD.canonical AND NEW.canonical IS NOT NULL
            AND NEW.document IS NOT DISTINCT FROM OLD.document THEN
            NEW.document := NEW.canonical::jsonb;
          ELSIF NEW.canonical IS NOT DISTINCT FROM OLD.canonical AND NEW.document IS DISTINCT FROM OLD.document THEN
            NEW.canonical := NULL;
          END IF;
        ELSIF NEW.document IS NULL AND NEW.canonical IS NOT NULL THEN
          NEW.document := NEW.canonical::jsonb;
        END IF;
        IF jsonb_typeof(NEW.document) = 'object' AND jsonb_typeof(NEW.document->'_schema') = 'string'
          AND strpos(NEW.document->>'_schema', '@') > 0 THEN
          NEW.schema_version := split_part(NEW.document->>'_schema', '@', 2);
        END IF;
        IF NEW.canonical IS NULL THEN NEW.content_sha256 := NULL; END IF;
        NEW.updated_at := now();
        RETURN NEW;
      END $$
      """,
    ]
    // Casts that give NULL, not an error, for a value that is not of the type: one bad row
    // never stops a view from answering for the others.
    for (name, type) in safeCasts {
      statements.append(
        """
        CREATE OR REPLACE FUNCTION \(qualified(schema, name))(value text) RETURNS \(type)
        LANGUAGE plpgsql STABLE PARALLEL SAFE AS $$
        BEGIN
          RETURN value::\(type);
        EXCEPTION WHEN others THEN
          RETURN NULL;
        END $$
        """)
    }
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
        // A database made by an earlier formsctl counted each row's revisions from 1: the
        // sequence starts past every revision there is.
        """
        SELECT setval(\(literal(schema + ".formsctl_revision"))::regclass, greatest(
          (SELECT last_value FROM \(qualified(schema, "formsctl_revision"))),
          (SELECT coalesce(max(revision), 0) FROM \(table)), 1))
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
        statements += [
          "DROP VIEW IF EXISTS \(view)", createView(version, schema: schema),
        ]
      }
    }
    return statements
  }

  /// The functions the views cast with (`formsctl_date(text)`: a date, or NULL when the text is
  /// not one), and the type each gives.
  static let safeCasts: [(name: String, type: String)] = [
    ("formsctl_numeric", "numeric"), ("formsctl_boolean", "boolean"), ("formsctl_date", "date"),
    ("formsctl_timestamptz", "timestamptz"),
  ]

  /// The row's own columns in every view, named so no document field can take their place: a
  /// descriptor cannot declare a top-level member starting with `_` (docs/design.md §13).
  public static let bookkeeping: [(column: String, view: String)] = [
    ("id", "_id"), ("schema_version", "_schema_version"), ("revision", "_revision"), ("updated_at", "_updated_at"),
    ("updated_by", "_updated_by"),
  ]

  /// The typed columns of a version's top-level scalar fields (sensitive ones left out). A value
  /// that is not of its type (a date written by hand as `2026-13-45`) is NULL in its column.
  public static func typedColumns(_ schema: Schema, in namespace: String = "formsctl") -> [(name: String, sql: String)]
  {
    schema.root.fieldOrder.compactMap { name -> (String, String)? in
      guard let field = schema.root.fields[name], !field.sensitive else { return nil }
      let text = "(document->>\(literal(name)))"
      func cast(_ function: String) -> String { qualified(namespace, function) + text }
      switch field.type.kind {
      case .string, .uuid, .enumeration: return (name, text)
      case .integer, .decimal, .number: return (name, cast("formsctl_numeric"))
      case .boolean: return (name, cast("formsctl_boolean"))
      case .date: return (name, cast("formsctl_date"))
      case .datetime: return (name, cast("formsctl_timestamptz"))
      default: return nil
      }
    }
  }

  /// A version's view: the row's bookkeeping (`_id`, `_revision`...), then its typed columns.
  static func select(_ schema: Schema, from table: String, in namespace: String) -> String {
    let typed = typedColumns(schema, in: namespace).map { "\($0.sql) AS \(identifier($0.name))" }
    let own = bookkeeping.map { "\($0.column) AS \(identifier($0.view))" }
    return "SELECT " + (own + typed).joined(separator: ", ")
      + " FROM \(table) WHERE schema_version = \(literal(schema.version.description))"
  }

  /// The statement that makes the typed view of `version` in `schema`.
  public static func createView(_ version: Schema, schema: String) -> String {
    let table = qualified(schema, Self.table(version.kind))
    return "CREATE VIEW \(qualified(schema, view(version.kind, version.version))) AS "
      + select(version, from: table, in: schema)
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
