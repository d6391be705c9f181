import ArgumentParser
import FormsCommandLine
import FormsCore
import FormsStore

extension Formsctl {
  struct Get: ParsableCommand {
    static let configuration = CommandConfiguration(
      commandName: "get",
      abstract: "Print a document, or one field of it (strings raw, other values as JSON).",
      discussion: """
        An id may be shortened to any unique prefix of 4 or more characters, as with git's hashes; this holds for every command that takes an id.

        Examples:
          formsctl get form 0adc90c4                    # a unique prefix of the id
          formsctl get purchase-order PO-000201 --field items[0].quantity
          formsctl get acquisition ACQ-2026-001 | jq .title
        """
    )
    @OptionGroup var options: StoreOptions
    @Argument(help: "The kind.", completion: Completions.kinds) var kind: String
    @Argument(help: "The document's id (or a unique prefix of 4+ characters).", completion: Completions.ids) var id:
      String
    @Option(help: ArgumentHelp("A field path, e.g. status or items[0].quantity.", valueName: "PATH")) var field: String?

    func run() throws {
      let store = try options.open()
      let path = try field.map { field in
        guard let path = FilterExpression.Path(field) else { throw CommandError.usage("\(field): not a field path") }
        return path
      }
      let values = try store.shownValues(kind: kind, id: try store.expand(kind: kind, id: id), field: path)
      // The whole document is printed as stored; a field's values one per line.
      for value in values {
        if path == nil {
          FileHandleOutput.standardOutput.write(JSONWriter.canonicalString(value))
        } else {
          printValue(value)
        }
      }
    }

    /// A scalar as its text (what `jq -r` prints), anything else as canonical JSON.
    func printValue(_ value: JSONValue) {
      switch value {
      case .string(let s): printOut(s)
      case .number(let n): printOut(n.text)
      default: FileHandleOutput.standardOutput.write(JSONWriter.canonicalString(value))
      }
    }
  }
}
