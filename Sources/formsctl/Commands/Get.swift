import ArgumentParser
import FormsCore
import FormsStore

extension Formsctl {
  struct Get: ParsableCommand {
    static let configuration = CommandConfiguration(
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
      let read = try store.read(kind: kind, id: try store.expand(kind: kind, id: id))
      let document = store.shown(read)
      guard let field else {
        try store.recordAccess([store.access(read, kind: kind)].compactMap { $0 })
        return FileHandleOutput.standardOutput.write(JSONWriter.canonicalString(document))
      }
      guard let path = Expression.Path(field) else { throw CommandError.usage("\(field): not a field path") }
      try store.recordAccess(
        [store.access(read, kind: kind, shown: path.located(in: read.value).map(\.pointer))].compactMap { $0 })
      let values = path.values(in: document)
      guard !values.isEmpty else { throw CommandError.badInput("\(kind) \(id) has no \(field)") }
      // A placeholder is not the value: a script must not take «encrypted» for data.
      if path.values(in: read.value).contains(where: SealedText.isSealed) {
        throw CommandError.badInput(
          "\(kind) \(id): \(field) is sealed (a sensitive field), and no identity here opens it; nothing printed "
            + "(FORMSCTL_IDENTITY names a recipient's identity)")
      }
      for value in values { printValue(value) }
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
