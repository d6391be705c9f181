import FormsCore
import FormsTestSupport
import Testing

/// A kind with every shape a spreadsheet meets: text, numbers, booleans, an object, a list of
/// scalars and a list of objects.
let sheetSchema = try! compile(
  """
  kind: po
  version: 1.0.0
  id: n
  timestamps: {updated: u}
  fields:
    n: string
    u: datetime
    note: string?
    paid: boolean?
    meta: {type: object, optional: true, fields: {agency: string?, code: integer?}}
    tags: {type: list, of: string, optional: true}
    items: {type: list, of: item, unique: [k]}
  types:
    item: {fields: {k: integer, price: {type: decimal, optional: true}, label: string?}}
  """)

struct CSVTableTests {
  @Test func quotedFieldsKeepCommasQuotesAndLineBreaks() throws {
    let table = try CSVTable.parse(Array("a,b\r\n\"x, \"\"y\"\"\",\"two\nlines\"\r\nplain,\"\"\n".utf8))
    #expect(table.header.map(\.text) == ["a", "b"])
    #expect(table.rows.map { $0.map(\.text) } == [["x, \"y\"", "two\nlines"], ["plain", ""]])
    #expect(table.rows[1][0].position == SourcePosition(line: 4, column: 1), "after a quoted line break")
    #expect(table.rows[1][1].quoted && !table.rows[1][1].isAbsent)
  }

  @Test func aByteOrderMarkIsSkippedAndBlankLinesToo() throws {
    let table = try CSVTable.parse([0xEF, 0xBB, 0xBF] + Array("id,n\n\n1,2\n\n".utf8))
    #expect(table.header.map(\.text) == ["id", "n"])
    #expect(table.header[0].position == SourcePosition(line: 1, column: 1))
    #expect(table.rows.map { $0.map(\.text) } == [["1", "2"]])
  }

  @Test(arguments: [
    ("a,b\n1,\"open\n", "2:3: a quoted field is not closed: no quote ends the one here"),
    ("a,b\n1,x\"y\n", "2:4: a quote inside an unquoted field"),
    ("a,b\n1,\"x\"y\n", "2:6: text after a closing quote"),
    ("a,b\n1,2,3\n", "2:5: this row has 3 fields, the header 2 (an unquoted comma inside a value? quote the value)"),
    ("a,b\n1\n", "2:1: this row has 1 field, the header 2"),
    ("", "1:1: the file is empty"),
    ("\u{FEFF}\n\n", "3:1: the file is empty"),
    ("a,a\n", "1:3: the column \"a\" appears twice in the header (also at 1:1)"),
    ("a,,b\n", "1:3: a column of the header has no name"),
  ])
  func badFilesAreRefusedAtTheirPlace(text: String, message: String) {
    #expect {
      _ = try CSVTable.parse(Array(text.utf8))
    } throws: { error in
      "\(error)".hasPrefix(message)
    }
  }

  @Test func invalidUTF8IsRefusedAtItsByte() {
    #expect(
      throws: CSVError(
        "invalid UTF-8 (byte 0xE9); save the spreadsheet as \"CSV UTF-8\"", at: .init(line: 2, column: 5))
    ) {
      _ = try CSVTable.parse(Array("a,b\nca,f".utf8) + [0xE9] + Array("\n".utf8))
    }
  }
}

struct CSVDocumentsTests {
  static let documents: [JSONValue] = [
    """
    {"items": [{"k": 1, "label": "bolt, M6", "price": 12.50}, {"k": 2, "price": 1e3}],
     "meta": {"agency": "GSA", "code": 7}, "n": "PO-1", "note": "two\\nlines \\"quoted\\"", "paid": true,
     "tags": ["a", "b"], "u": "2026-11-01T00:00:00Z"}
    """,
    """
    {"items": [], "n": "PO-2", "note": "", "u": "2026-11-02T00:00:00Z"}
    """,
    """
    {"items": [{"k": 3, "label": "nut"}], "meta": {"code": 12345678901234567890}, "n": "PO-3", "paid": false,
     "u": "2026-11-03T00:00:00Z"}
    """,
  ].map { try! JSONParser().parse($0) }

  static func explode() throws -> (columns: [CSVColumn], text: String) {
    let list = try CSVDocuments.explodedList("items", in: sheetSchema).get()
    let columns = CSVDocuments.columns(of: documents, schema: sheetSchema, explode: list)
    return (columns, CSVDocuments.write(documents, columns: columns, explode: list))
  }

  @Test func explodingWritesOneRowPerElementWithTheDocumentRepeated() throws {
    let (columns, text) = try Self.explode()
    #expect(
      columns.map(\.name) == [
        "n", "items[].k", "items[].label", "items[].price", "meta.agency", "meta.code", "note", "paid", "tags", "u",
      ])
    #expect(
      text == #"""
        n,items[].k,items[].label,items[].price,meta.agency,meta.code,note,paid,tags,u
        PO-1,1,"bolt, M6",12.50,GSA,7,"two
        lines ""quoted""",true,"[""a"",""b""]",2026-11-01T00:00:00Z
        PO-1,2,,1e3,GSA,7,"two
        lines ""quoted""",true,"[""a"",""b""]",2026-11-01T00:00:00Z
        PO-2,,,,,,"",,,2026-11-02T00:00:00Z
        PO-3,3,nut,,,12345678901234567890,,false,,2026-11-03T00:00:00Z

        """#)
  }

  @Test func readingTheExplodedRowsGivesTheDocumentsBack() throws {
    let (_, text) = try Self.explode()
    let records = try CSVDocuments.records(try CSVTable.parse(Array(text.utf8)), schema: sheetSchema)
    #expect(records.map(\.line) == [2, 6, 7])
    #expect(records.map { JSONWriter.canonicalString($0.value) } == Self.documents.map(JSONWriter.canonicalString))
  }

  @Test func aColumnMapNamesFieldsAndLeavesColumnsOut() throws {
    let text = "Order,Updated,Who,Line,Qty\nPO-9,2026-11-01T00:00:00Z,me,1,\nPO-9,2026-11-01T00:00:00Z,me,2,\n"
    let map = CSVColumnMap(
      fields: ["Order": "n", "Updated": "u", "Line": "items[].k"], ignored: ["Who", "Qty"])
    let records = try CSVDocuments.records(try CSVTable.parse(Array(text.utf8)), schema: sheetSchema, map: map)
    #expect(
      records.map { JSONWriter.compact($0.value) } == [
        #"{"items":[{"k":1},{"k":2}],"n":"PO-9","u":"2026-11-01T00:00:00Z"}"#
      ])
  }

  @Test(arguments: [
    ("n,u,labels\n", "1:5: column \"labels\" is not a field of po; did you mean \"items[].label\"?"),
    ("n,u,item[].k\n", "1:5: column \"item[].k\" is not a field of po; did you mean \"items[].k\"?"),
    ("n,u,items[].k,tags[]\n", "1:15: column \"tags[]\" is under another list than \"items[].k\""),
    ("n,u,items,items[].k\n", "1:11: column \"items[].k\" fills what \"items\" fills"),
    ("n,u,_sync\n", "1:5: column \"_sync\": _sync is computed when a document is read"),
    ("n,u,_foo\n", "1:5: column \"_foo\" is not a field of po"),
    ("n,u,_attachments\n", "1:5: column \"_attachments\" is not a field of po"),
    ("n,u,_approvals\n", "1:5: column \"_approvals\" is not a field of po"),
    ("u,items[].k\n", "1:1: the rows of a document are grouped by its n, and no column is n"),
    (
      "n,u,items[].price\nPO-1,2026-11-01T00:00:00Z,\"1,234.50\"\n",
      "2:27: items[].price: \"1,234.50\" has a thousands separator; write the number without it (1234.50)"
    ),
    ("n,u,meta.code\nPO-1,2026-11-01T00:00:00Z,\"12,5\"\n", "2:27: meta.code: \"12,5\" has a decimal comma"),
    ("n,u,meta.code\nPO-1,2026-11-01T00:00:00Z, 12\n", "2:27: meta.code: \" 12\" has spaces around the number"),
    ("n,u,meta.code\nPO-1,2026-11-01T00:00:00Z,$12\n", "2:27: meta.code: \"$12\" is not a number"),
    ("n,u,paid\nPO-1,2026-11-01T00:00:00Z,yes\n", "2:27: paid: \"yes\" is not true or false"),
    ("n,u\nPO-1,11/01/2026\n", "2:6: u: \"11/01/2026\" is not an RFC 3339 datetime with an offset"),
    ("n,u,tags\nPO-1,2026-11-01T00:00:00Z,a;b\n", "2:27: tags: the cell holds JSON"),
    (
      "n,u,items[].k\nPO-1,2026-11-01T00:00:00Z,1\nPO-1,2026-11-02T00:00:00Z,2\n",
      "3:6: u is \"2026-11-02T00:00:00Z\" here but \"2026-11-01T00:00:00Z\" on line 2, for the same n PO-1"
    ),
    ("n,u,items[].k\n,2026-11-01T00:00:00Z,1\n", "2:1: n: this row names no document"),
  ])
  func badColumnsAndCellsAreRefusedAtTheirCell(text: String, message: String) {
    #expect {
      _ = try CSVDocuments.records(try CSVTable.parse(Array(text.utf8)), schema: sheetSchema)
    } throws: { error in
      "\(error)".hasPrefix(message)
    }
  }

  @Test func theTextNullOfANullableFieldIsQuotedAndReadsBackAsText() throws {
    let schema = try compile(
      "kind: k\nversion: 1.0.0\nid: n\nfields:\n  n: string\n  a: {type: string, nullable: true}\n")
    let documents = [#"{"a": "null", "n": "x"}"#, #"{"a": null, "n": "y"}"#].map { try! JSONParser().parse($0) }
    let columns = CSVDocuments.columns(of: documents, schema: schema, explode: nil)
    let text = CSVDocuments.write(documents, columns: columns, explode: nil)
    #expect(text == "n,a\nx,\"null\"\ny,null\n")
    let records = try CSVDocuments.records(try CSVTable.parse(Array(text.utf8)), schema: schema)
    #expect(records.map { JSONWriter.compact($0.value) } == [#"{"a":"null","n":"x"}"#, #"{"a":null,"n":"y"}"#])
  }

  /// A kind whose `one_of`, map and `any` fields a spreadsheet keeps as one JSON cell each.
  static let cells = try! compile(
    """
    kind: cells
    version: 1.0.0
    id: n
    fields:
      n: string
      body: {one_of: {by: form, cases: {a: body_a}}, optional: true}
      notes: {type: map, of: body_a, optional: true}
      blob: any?
      rows: {type: list, of: body_a, optional: true}
    types:
      body_a: {fields: {form: string, when: date?, lines: {type: list, of: string, optional: true}}}
    """)

  @Test(arguments: [
    ("n,body.when\n", "1:3: column \"body.when\": body is one JSON cell (a one_of): a column may not reach inside it"),
    ("n,notes.x\n", "1:3: column \"notes.x\": notes is one JSON cell (a map): a column may not reach inside it"),
    ("n,blob.x\n", "1:3: column \"blob.x\": blob is one JSON cell (any value): a column may not reach inside it"),
    ("n,body.lines[]\n", "1:3: column \"body.lines[]\": body is one JSON cell (a one_of)"),
    ("n,when\n", "1:3: column \"when\" is not a field of cells; did you mean \"rows[].when\"?"),
  ])
  func aColumnMayNotReachInsideAJSONCell(text: String, message: String) {
    #expect {
      _ = try CSVDocuments.records(try CSVTable.parse(Array(text.utf8)), schema: Self.cells)
    } throws: { error in
      "\(error)".hasPrefix(message)
    }
    #expect(
      (try? CSVDocuments.records(try CSVTable.parse(Array("n,body,rows[].when\n".utf8)), schema: Self.cells)) != nil)
  }

  @Test func explodeRefusesAListInsideAJSONCell() {
    #expect {
      try CSVDocuments.explodedList("body.lines", in: Self.cells).get()
    } throws: { error in
      (error as? CSVColumnProblem)?.message
        == "body is one JSON cell (a one_of), and the lists inside it stay in that cell; the lists that explode: rows"
    }
    #expect((try? CSVDocuments.explodedList("rows", in: Self.cells).get()) == ["rows"])
  }

  @Test func withRejectedABadCellRejectsItsDocumentOnly() throws {
    let text = """
      n,u,paid,items[].k
      PO-1,2026-11-01T00:00:00Z,true,1
      PO-2,2026-11-01T00:00:00Z,yes,1
      PO-2,2026-11-01T00:00:00Z,yes,2
      PO-3,2026-11-01T00:00:00Z,false,x

      """
    let table = try CSVTable.parse(Array(text.utf8))
    var rejected: [CSVDocuments.Rejected] = []
    let records = try CSVDocuments.records(table, schema: sheetSchema) { rejected.append($0) }
    #expect(records.map(\.line) == [2, 3, 5])
    #expect(records[0].value["n"] == .string("PO-1"))
    #expect(rejected.map(\.line) == [3, 5])
    #expect(rejected.map(\.id) == ["PO-2", "PO-3"], "the id its id column names")
    #expect(rejected.map(\.position) == [SourcePosition(line: 3, column: 27), SourcePosition(line: 5, column: 33)])
    #expect(
      rejected.map(\.message) == [
        "paid: \"yes\" is not true or false",
        "items[].k: \"x\" is not a number (write it as JSON does: 1234.50, -3, 1e6)",
      ])
    #expect(
      rejected[0].text == "n,u,paid,items[].k\nPO-2,2026-11-01T00:00:00Z,yes,1\nPO-2,2026-11-01T00:00:00Z,yes,2\n")
    #expect(records[1].value == .string(rejected[0].text), "it stands in the records as its text")
    // Without the callback the first bad cell refuses the file, as before.
    #expect(throws: CSVError.self) { _ = try CSVDocuments.records(table, schema: sheetSchema) }
  }

  @Test func explodeNamesAListField() {
    #expect(throws: CSVColumnProblem.self) { try CSVDocuments.explodedList("note", in: sheetSchema).get() }
    #expect(throws: CSVColumnProblem.self) { try CSVDocuments.explodedList("itmes", in: sheetSchema).get() }
    #expect((try? CSVDocuments.explodedList("items[]", in: sheetSchema).get()) == ["items"])
  }
}
