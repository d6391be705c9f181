import ArgumentParser
import FormsCommandLine
import FormsCore
import FormsStore

extension Formsctl {
  struct New: ParsableCommand {
    static let configuration = CommandConfiguration(
      commandName: "new",
      abstract: "Create a document from a file, stdin (-), --set values, or a mix.",
      discussion: """
        Fills _schema (the kind's newest version), defaults, the id (a new UUID when the id field is a uuid), and missing timestamps (the document's and its list elements'); validates against the store under the lock; refuses an id that exists. A document starts in its workflow's first state (the field's default, or a state no transition leads into): a form is created as draft, then moved with `formsctl status`. Values are typed by the schema: --set quantity=5 is a number, --set note=5 a string.

        --template NAME starts from templates/KIND/NAME.json in the store, a document with placeholders: a string value written {{NAME}} must be replaced by a --set (or --json) of its path, or nothing is written. `formsctl schema check` checks every template.

        Examples:
          formsctl new form --set form_type=SF30 --set acquisition_id=ACQ-2026-001
          ID=$(formsctl new form --set form_type=SF44) && formsctl get form "$ID"
          formsctl get acquisition ACQ-2026-001 | sed 's/-001/-021/' > acq.json
          formsctl new acquisition acq.json --set status=planning
          formsctl new form --template sf30-amendment --set form_number=SF30-0042 \\
            --set acquisition_id=ACQ-2026-001 --set fields.amendment_number=0001 \\
            --set 'fields.description_of_change=Extends the due date'
          formsctl get acquisition ACQ-2026-002 | jq '.id = "ACQ-2026-012"' \\
            | formsctl new acquisition - --set status=planning
        """
    )
    @OptionGroup var options: StoreOptions
    @Argument(help: "The kind.", completion: Completions.kinds) var kind: String
    @Argument(help: "A JSON file with the document, or - for stdin.") var file: String?
    @Option(help: ArgumentHelp("Start from the store's template templates/KIND/NAME.json.", valueName: "NAME"))
    var template: String?
    @Option(
      name: .customLong("set"), help: ArgumentHelp("A field value, typed by the schema.", valueName: "PATH=VALUE"))
    var sets: [String] = []
    @Option(name: .customLong("json"), help: ArgumentHelp("A field set to a JSON value.", valueName: "PATH=JSON"))
    var jsonSets: [String] = []
    @Option(
      help:
        "What to print on stdout: the new id (a line saying where it was written goes to stderr), the file's path, or the document as JSON."
    )
    var format: NewOutput = .id

    func validate() throws {
      if template != nil && file != nil {
        throw ValidationError("--template and FILE are two starting points; give one")
      }
    }

    func run() throws {
      let store = try options.open(toWrite: true)
      let assignments = try sets.map { try Assignment($0) } + jsonSets.map { try Assignment($0, json: true) }
      let document =
        try template.map { try store.create(kind: kind, template: $0, assignments: assignments) }
        ?? store.create(kind: kind, base: try file.map(Self.read) ?? .object(JSONObject()), assignments: assignments)
      switch format {
      case .id:
        let id = document.value[try store.schema(kind).idField].flatMap(DocumentID.text) ?? ""
        printOut(id)
        if !options.quiet {
          FileHandleOutput.standardError.write("created \(kind) \(id) (\(store.display(document.path)))\n")
        }
      case .path: printWritten(document, format: .path, store: store)
      case .json: printWritten(document, format: .json, store: store)
      }
    }

    /// The input document: a file, or standard input for `-`.
    static func read(_ file: String) throws -> JSONValue {
      let bytes = file == "-" ? try readStandardInput() : try FileIO.read(FilePath(file))
      do {
        return try JSONParser().parse(bytes)
      } catch {
        throw CommandError.badInput(
          "\(file == "-" ? "<stdin>" : file):\(error.location.line):\(error.location.column): \(error.message)")
      }
    }
  }
}
