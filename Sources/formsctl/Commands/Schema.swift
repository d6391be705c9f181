import ArgumentParser
import FormsCore
import FormsStore

extension Formsctl {
  struct Schema: ParsableCommand {
    static let configuration = CommandConfiguration(
      commandName: "schema",
      abstract: "List, show, check and export the schema descriptors.",
      discussion: """
        Examples:
          formsctl schema list
          formsctl schema show purchase-order
          formsctl schema check
        """,
      subcommands: [List.self, Show.self, Check.self, Export.self, Graph.self]
    )

    /// The store and its compiled descriptors.
    static func load(_ options: StoreOptions) throws -> (StoreLayout, SchemaRegistry) {
      let layout = try options.locate()
      let display = PathDisplay(workingDirectory: FileIO.currentDirectory).show
      return (layout, try SchemaRegistry.load(directory: layout.schemasDirectory, display: display))
    }

    struct Check: ParsableCommand {
      static let configuration = CommandConfiguration(
        abstract: "Check every descriptor: keys, types, patterns, defaults, cycles, relations, expressions.",
        discussion: """
          Exit 1 when any problem is found; each is printed as schemas/<kind>/<version>.yaml:LINE:COL: error: message.

          Examples:
            formsctl schema check
          """
      )
      @OptionGroup var options: StoreOptions
      @Option(help: "Output: text, json or github.") var format: DiagnosticPrinter.Format = .text

      func run() throws {
        let (_, registry) = try Schema.load(options)
        FileHandleOutput.standardOutput.write(DiagnosticPrinter.render(registry.diagnostics, as: format))
        let count = registry.schemas.values.map(\.count).reduce(0, +)
        if !options.quiet && format != .json {
          printOut(
            "checked the descriptors of \(registry.kinds.count) kinds (\(count) versions compiled): \(registry.diagnostics.count) problem(s)"
          )
        }
        if !registry.diagnostics.isEmpty { throw ExitStatus.problems }
      }
    }

    struct List: ParsableCommand {
      static let configuration = CommandConfiguration(
        abstract: "List the kinds and their versions.",
        discussion: """
          Examples:
            formsctl schema list
            formsctl schema list --format json | jq '.[].kind'
          """)
      @OptionGroup var options: StoreOptions
      @Option(help: "Output: table or json.") var format: ListFormat = .table

      enum ListFormat: String, ExpressibleByArgument { case table, json }

      func run() throws {
        let (_, registry) = try Schema.load(options)
        switch format {
        case .json:
          let kinds: [JSONValue] = registry.latestByKind.map { kind, latest in
            .object(
              JSONObject([
                "kind": .string(kind), "title": latest.title.map(JSONValue.string) ?? .null,
                "directory": .string(latest.directory), "latest": .string(latest.version.description),
                "versions": .array(registry.versions(kind).map { .string($0.description) }),
              ]))
          }
          FileHandleOutput.standardOutput.write(JSONWriter.canonicalString(.array(kinds)))
        case .table:
          var rows = [["KIND", "LATEST", "VERSIONS", "DIRECTORY", "TITLE"]]
          for (kind, latest) in registry.latestByKind {
            rows.append([
              kind, latest.version.description, registry.versions(kind).map(\.description).joined(separator: ", "),
              "data/" + latest.directory, latest.title ?? "",
            ])
          }
          FileHandleOutput.standardOutput.write(TextTable.render(rows))
        }
      }
    }

    struct Show: ParsableCommand {
      static let configuration = CommandConfiguration(
        abstract: "Print one descriptor, as written (KIND or KIND@VERSION).",
        discussion: """
          Examples:
            formsctl schema show form
            formsctl schema show form@1.0.0
          """)
      @OptionGroup var options: StoreOptions
      @Argument(help: "KIND (the newest version) or KIND@VERSION.") var reference: String

      func run() throws {
        let (_, registry) = try Schema.load(options)
        let schema = reference.contains("@") ? registry.schema(reference: reference) : registry.latest(reference)
        guard let schema, let path = registry.files[schema.reference] else {
          throw CommandError.badInput(
            "unknown schema \(reference) (known kinds: \(registry.kinds.joined(separator: ", ")))")
        }
        FileHandleOutput.standardOutput.write(String(decoding: try FileIO.read(path), as: UTF8.self))
      }
    }
  }
}
