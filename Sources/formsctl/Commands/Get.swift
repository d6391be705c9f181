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
          formsctl attach purchase-order PO-000201 quote ../papers/quote-PO-000201.pdf
          formsctl get purchase-order PO-000201 --attachment quote > quote.pdf

        --attachment NAME writes the attachment's file to standard output, after checking it is the file the document's record names (its size and SHA-256); a missing or altered file is refused (exit 65). Binary content is not written to a terminal: redirect it.
        """
    )
    @OptionGroup var options: StoreOptions
    @Argument(help: "The kind.", completion: Completions.kinds) var kind: String
    @Argument(help: "The document's id (or a unique prefix of 4+ characters).", completion: Completions.ids) var id:
      String
    @Option(help: ArgumentHelp("A field path, e.g. status or items[0].quantity.", valueName: "PATH")) var field: String?
    @Option(help: ArgumentHelp("Write this attachment's file to standard output instead.", valueName: "NAME"))
    var attachment: String?

    func validate() throws {
      if field != nil && attachment != nil { throw ValidationError("--field and --attachment: choose one") }
    }

    func run() throws {
      let store = try options.open()
      if let attachment {
        let (bytes, record) = try store.attachment(
          kind: kind, id: try store.expand(kind: kind, id: id), name: attachment)
        if FileHandleOutput.standardOutput.isTerminal && !record.type.hasPrefix("text/")
          && record.type != "application/json"
        {
          throw CommandError.usage(
            "\(attachment) is \(record.type); redirect it to a file: > \(attachment).\(MediaType.known[record.type]?.extensions.first ?? "bin")"
          )
        }
        return FileHandleOutput.standardOutput.write(bytes: bytes)
      }
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
