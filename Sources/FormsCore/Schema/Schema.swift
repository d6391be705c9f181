/// One kind at one version, compiled from its descriptor (docs/design.md §5) into a form that validates fast.
public struct Schema: Sendable {
  public let kind: String
  public let version: SemanticVersion
  public let title: String?
  /// The folder under `data/` that holds this kind's documents.
  public let directory: String
  /// The field whose value is the document's id and file name.
  public let idField: String
  /// The fields formsctl maintains on every write: the root type's own timestamps.
  public var timestamps: Timestamps { root.timestamps }
  /// The document's own type: an object.
  public let root: SchemaType
  /// The named types under `types:` (and those included), by name.
  public let namedTypes: [String: SchemaType]
  public let relations: [Relation]
  public let workflow: Workflow?
  public let rules: [Rule]
  /// References inside the document (`references:`): every value at a `field` path must be one of
  /// the values at its `to` path (a receipt's item must be one of the order's items).
  public let references: [Reference]
  /// Fields kept equal to a value of the document (`derived:`), often inside a `json_string`
  /// field's text: a quick-access copy that must agree with what it copies.
  public let derived: [Derived]
  /// The version this one migrates from, and how (run by `migrate`).
  public let from: SemanticVersion?
  public let changes: [JSONValue]?
  /// The order `list` shows documents in when no `--sort` is given (descriptor `order:`).
  public let order: [(path: FilterExpression.Path, descending: Bool)]
  /// The columns a list of the kind shows (`columns:`), field paths; empty: the default columns.
  public let columns: [FilterExpression.Path]
  /// What people may change (descriptor `editable:`); nil: everything. Feeds, migrations and
  /// renames are not limited by it.
  public let editable: [EditablePath]?
  /// The fields of this kind, at any depth, marked `sensitive: true` (stored encrypted).
  public let sensitiveFieldNames: Set<String>
  /// True when some field of this kind is `sensitive: true`.
  public let hasSensitiveFields: Bool
  /// The approval chains that guard workflow states (descriptor `approvals:`).
  public let approvals: Approvals?
  /// The files a document may carry (descriptor `attachments:`), in the order declared.
  public let attachments: [Attachment]

  public init(
    kind: String, version: SemanticVersion, title: String?, directory: String, idField: String, root: SchemaType,
    namedTypes: [String: SchemaType], relations: [Relation], workflow: Workflow?, rules: [Rule],
    from: SemanticVersion?, changes: [JSONValue]?, order: [(path: FilterExpression.Path, descending: Bool)] = [],
    editable: [EditablePath]? = nil, references: [Reference] = [], derived: [Derived] = [],
    approvals: Approvals? = nil, attachments: [Attachment] = [], columns: [FilterExpression.Path] = []
  ) {
    self.columns = columns
    self.approvals = approvals
    self.attachments = attachments
    self.derived = derived
    self.references = references
    self.kind = kind
    self.version = version
    self.title = title
    self.directory = directory
    self.idField = idField
    self.root = root
    self.namedTypes = namedTypes
    self.relations = relations
    self.workflow = workflow
    self.rules = rules
    self.from = from
    self.changes = changes
    self.order = order
    self.editable = editable
    sensitiveFieldNames = root.sensitiveFieldNames()
    hasSensitiveFields = !sensitiveFieldNames.isEmpty
  }

  /// `kind@version`, the value of a document's `_schema`.
  public var reference: String { "\(kind)@\(version)" }

  /// `created` and `updated` timestamp field names.
  public struct Timestamps: Sendable, Equatable {
    public var created: String?
    public var updated: String?
    public init(created: String? = nil, updated: String? = nil) {
      self.created = created
      self.updated = updated
    }
  }

  /// A field that holds the id of a document of another kind.
  public struct Relation: Sendable, Equatable {
    public enum OnDelete: String, Sendable { case cascade, nullify, restrict }
    public let field: String
    public let kind: String
    public let onDelete: OnDelete
    public init(field: String, kind: String, onDelete: OnDelete) {
      self.field = field
      self.kind = kind
      self.onDelete = onDelete
    }
  }

  /// The allowed transitions of a status field.
  public struct Workflow: Sendable, Equatable {
    public let field: String
    public let transitions: [String: [String]]
    public init(field: String, transitions: [String: [String]]) {
      self.field = field
      self.transitions = transitions
    }
  }

  /// A reference inside the document: each value `field` reaches must be one `to` reaches.
  public struct Reference: Sendable, Equatable {
    public let field: FilterExpression.Path
    public let to: FilterExpression.Path
    public let message: String?
    public init(field: FilterExpression.Path, to: FilterExpression.Path, message: String?) {
      self.field = field
      self.to = to
      self.message = message
    }
  }

  /// A derived field: where the document has `field` (not null), it equals the value at `from`
  /// (numbers as exact decimals). A step of `from` into a string reads the JSON text the string
  /// holds, so `outputsJSON.intrinsic_value` reaches into a `json_string` field.
  public struct Derived: Sendable, Equatable {
    public let field: FilterExpression.Path
    public let from: FilterExpression.Path
    public let message: String?
    public init(field: FilterExpression.Path, from: FilterExpression.Path, message: String?) {
      self.field = field
      self.from = from
      self.message = message
    }

    /// The values `from` reaches in `document`, through the JSON text of strings on the way;
    /// empty when a text on the way does not parse (its own field reports that).
    public func sources(in document: JSONValue) -> [JSONValue] {
      var current = [document]
      for step in from.steps {
        current = current.flatMap { item -> [JSONValue] in
          guard case .string(let text) = item else { return FilterExpression.Path(steps: [step]).values(in: item) }
          guard let parsed = try? JSONParser().parse(Array(text.utf8)) else { return [] }
          return FilterExpression.Path(steps: [step]).values(in: parsed)
        }
      }
      return current
    }
  }

  /// A rule across fields: when `when` holds (or always), `require` must.
  public struct Rule: Sendable, Equatable {
    public let when: FilterExpression?
    public let require: FilterExpression
    public let source: String
    public let message: String?
    public init(when: FilterExpression?, require: FilterExpression, source: String, message: String?) {
      self.when = when
      self.require = require
      self.source = source
      self.message = message
    }
  }
}

/// A type of a value, with its constraints. Named types are shared instances, so a field of type
/// `item` points at the one `item` type. Immutable: the descriptor compiler builds each type whole,
/// the types it names first (docs/design.md §5), and validation only reads it.
public final class SchemaType: Sendable {
  /// The built-in type names of docs/design.md §5.
  public enum Kind: String, Sendable, CaseIterable {
    case string, integer, decimal, number, boolean, date, datetime, uuid
    case enumeration = "enum"
    case list, object, map, any
    case oneOf = "one_of"
    /// A string whose text is JSON of the type `element` (legacy layouts keep objects so).
    case jsonString = "json_string"
  }

  public let kind: Kind
  /// The name under `types:` for a named type.
  public let name: String?
  public let minimum: JSONNumber?
  public let maximum: JSONNumber?
  public let minLength: Int?
  public let maxLength: Int?
  public let pattern: CompiledPattern?
  public let scale: Int?
  public let values: [String]
  /// The type of list elements and map values.
  public let element: SchemaType?
  public let minItems: Int?
  public let maxItems: Int?
  public let unique: [String]?
  /// Object fields by name, and their order in the descriptor.
  public let fields: [String: Field]
  public let fieldOrder: [String]
  public let additional: Bool
  /// For `one_of`: the sibling field whose value picks the case, and the cases.
  public let discriminator: String?
  public let cases: [String: SchemaType]
  public let caseOrder: [String]
  /// The object's own timestamp fields (`timestamps:` on a named type, or the descriptor's for
  /// the document), maintained on every write that changes the object (docs/design.md §12).
  public let timestamps: Schema.Timestamps
  /// Fields that must be present: not optional and without a default.
  public let requiredFields: [String]
  /// The fields in code-point order (the order of a parsed object's members), each with its index
  /// in `requiredFields` when it is required: the validator walks both lists side by side.
  let sortedFields: [SortedField]
  /// The constraints this type carries: those of its properties that are set.
  public let constraints: Set<Constraint>
  /// What the validator's byte path may do with a value of this type, decided here from `kind`
  /// and `constraints`.
  public let quickPath: QuickPath

  /// A type with the constraints its kind takes; `fields` and `cases` in descriptor order.
  public init(
    kind: Kind, name: String? = nil, minimum: JSONNumber? = nil, maximum: JSONNumber? = nil, minLength: Int? = nil,
    maxLength: Int? = nil, pattern: CompiledPattern? = nil, scale: Int? = nil, values: [String] = [],
    element: SchemaType? = nil, minItems: Int? = nil, maxItems: Int? = nil, unique: [String]? = nil,
    fields: [Field] = [], additional: Bool = false, discriminator: String? = nil,
    cases: [(value: String, type: SchemaType)] = [], timestamps: Schema.Timestamps = Schema.Timestamps()
  ) {
    self.kind = kind
    self.name = name
    self.minimum = minimum
    self.maximum = maximum
    self.minLength = minLength
    self.maxLength = maxLength
    self.pattern = pattern
    self.scale = scale
    self.values = values
    self.element = element
    self.minItems = minItems
    self.maxItems = maxItems
    self.unique = unique
    let byName = Dictionary(fields.map { ($0.name, $0) }) { _, last in last }
    self.fields = byName
    fieldOrder = fields.map(\.name)
    self.additional = additional
    self.discriminator = discriminator
    self.cases = Dictionary(cases.map { ($0.value, $0.type) }) { _, last in last }
    caseOrder = cases.map(\.value)
    self.timestamps = timestamps
    let required = fieldOrder.filter { name in byName[name].map { !$0.optional && $0.defaultValue == nil } ?? false }
    requiredFields = required
    sortedFields = byName.sorted { codePointLess($0.key, $1.key) }.map { name, field in
      SortedField(
        name: name, type: field.type, nullable: field.nullable, required: required.firstIndex(of: name) ?? -1)
    }
    let set: [(Constraint, Bool)] = [
      (.minimum, minimum != nil), (.maximum, maximum != nil), (.minLength, minLength != nil),
      (.maxLength, maxLength != nil), (.pattern, pattern != nil), (.scale, scale != nil), (.values, !values.isEmpty),
      (.element, element != nil), (.minItems, minItems != nil), (.maxItems, maxItems != nil), (.unique, unique != nil),
      (.fields, !fields.isEmpty), (.additional, additional), (.discriminator, discriminator != nil),
      (.cases, !cases.isEmpty),
    ]
    constraints = Set(set.filter(\.1).map(\.0))
    quickPath = .of(kind, constraints: constraints, frozen: required.count <= 64)
  }

  /// This type under another name: a named type defined as another (`money: amount`).
  public func renamed(_ name: String) -> SchemaType {
    SchemaType(
      kind: kind, name: name, minimum: minimum, maximum: maximum, minLength: minLength, maxLength: maxLength,
      pattern: pattern, scale: scale, values: values, element: element, minItems: minItems, maxItems: maxItems,
      unique: unique, fields: fieldOrder.compactMap { fields[$0] }, additional: additional,
      discriminator: discriminator, cases: caseOrder.compactMap { value in cases[value].map { (value, $0) } },
      timestamps: timestamps)
  }

  /// A `one_of` type as the case that applies to `value` (its discriminator is a member of
  /// `parent` or of the value itself); any other type as it is.
  public func resolved(parent: JSONValue?, value: JSONValue?) -> SchemaType {
    guard kind == .oneOf, let by = discriminator, let tag = (parent?[by] ?? value?[by])?.stringValue,
      let chosen = cases[tag]
    else { return self }
    return chosen
  }

  /// For a list with a `unique` key: the element of `stored` with the same key as `element`.
  public func keyedCounterpart(of element: JSONValue, in stored: [JSONValue]) -> JSONValue? {
    guard let keys = unique else { return nil }
    return stored.first { candidate in keys.allSatisfy { candidate[$0] == element[$0] } }
  }

  /// What the validator needs of a field, in a class so that walking the table copies nothing.
  final class SortedField: Sendable {
    let name: String
    let type: SchemaType
    let nullable: Bool
    /// The index in `requiredFields`, or -1.
    let required: Int

    init(name: String, type: SchemaType, nullable: Bool, required: Int) {
      (self.name, self.type, self.nullable, self.required) = (name, type, nullable, required)
    }
  }
}

/// A field of an object type.
public struct Field: Sendable {
  public let name: String
  public var type: SchemaType
  public var optional: Bool
  public var nullable: Bool
  public var defaultValue: JSONValue?
  public var immutable: Bool
  public var immutableWhen: FilterExpression?
  public var description: String?
  /// Stored encrypted (`sensitive: true`): the value on disk is an `enc:v1:` envelope.
  public var sensitive = false
  /// `declassified: true`: a migration may move a sensitive value of the version before into
  /// this field, which is not sensitive, on purpose (it is then stored in plain text).
  public var declassified = false

  public init(
    name: String, type: SchemaType, optional: Bool = false, nullable: Bool = false, defaultValue: JSONValue? = nil,
    immutable: Bool = false, immutableWhen: FilterExpression? = nil, description: String? = nil
  ) {
    self.name = name
    self.type = type
    self.optional = optional
    self.nullable = nullable
    self.defaultValue = defaultValue
    self.immutable = immutable
    self.immutableWhen = immutableWhen
    self.description = description
  }
}

/// `MAJOR.MINOR.PATCH`.
public struct SemanticVersion: Sendable, Hashable, Comparable, CustomStringConvertible {
  public let major: Int
  public let minor: Int
  public let patch: Int

  public init(major: Int, minor: Int, patch: Int) {
    self.major = major
    self.minor = minor
    self.patch = patch
  }

  public init?(_ text: String) {
    let parts = text.split(separator: ".", omittingEmptySubsequences: false)
    guard parts.count == 3,
      let numbers = Optional(
        parts.compactMap { part -> Int? in
          guard !part.isEmpty, part.allSatisfy(\.isASCII), part.allSatisfy(\.isNumber),
            part == "0" || !part.hasPrefix("0")
          else { return nil }
          return Int(part)
        }), numbers.count == 3
    else { return nil }
    (major, minor, patch) = (numbers[0], numbers[1], numbers[2])
  }

  public var description: String { "\(major).\(minor).\(patch)" }

  public static func < (a: SemanticVersion, b: SemanticVersion) -> Bool {
    (a.major, a.minor, a.patch) < (b.major, b.minor, b.patch)
  }
}
