import ArgumentParser
import FormsCommandLine
import FormsCore
import FormsStore

extension Formsctl.Schema {
  struct Show: ParsableCommand {
    static let configuration = CommandConfiguration(
      commandName: "show",
      abstract: "Print one descriptor, as written (KIND or KIND@VERSION).",
      discussion: """
        Examples:
          formsctl schema show form
          formsctl schema show form@1.0.0
        """)
    @OptionGroup var options: StoreOptions
    @Argument(help: "KIND (the newest version) or KIND@VERSION.") var reference: String

    func run() throws {
      let (_, registry) = try Formsctl.Schema.load(options)
      let schema = reference.contains("@") ? registry.schema(reference: reference) : registry.latest(reference)
      guard let schema, let path = registry.files[schema.reference] else {
        throw CommandError.badInput(
          "unknown schema \(reference) (known kinds: \(registry.kinds.joined(separator: ", ")))")
      }
      FileHandleOutput.standardOutput.write(String(decoding: try FileIO.read(FilePath(path)), as: UTF8.self))
    }
  }
}
