import ArgumentParser
import FormsCore
import FormsStore
import Foundation

extension Formsctl {
  struct Keygen: ParsableCommand {
    static let configuration = CommandConfiguration(
      abstract: "Make an identity (a private key) for sensitive fields and print its recipient.",
      discussion: """
        Writes a new X25519 identity to --out, else FORMSCTL_IDENTITY, else ~/.config/formsctl/identity, with mode 0600, and prints its recipient (the public key) on stdout. An existing file is never replaced, and no identity is written inside a store. Give the recipient to a key holder of each store, who runs `formsctl keys add RECIPIENT`; from then on formsctl opens the store's sensitive values for you.

        Examples:
          formsctl keygen --out ../my-identity
          formsctl keygen --out ../colleague-identity
        """
    )
    @Option(
      help: ArgumentHelp(
        "Where to write the identity (default: FORMSCTL_IDENTITY, else ~/.config/formsctl/identity).", valueName: "FILE"
      ))
    var out: String?

    func run() throws {
      let path =
        out.map { joinPath(FileIO.currentDirectory, $0) }
        ?? Identity.defaultPath(environment: ProcessInfo.processInfo.environment)
      let identity = Identity.generate()
      try identity.write(to: path, created: Instant(StoreOptions.clock()).rfc3339)
      printOut(identity.recipient.description)
      FileHandleOutput.standardError.write(
        "wrote the identity \(path) (mode 0600); a key holder adds its recipient with `formsctl keys add \(identity.recipient)`\n"
      )
    }
  }

  struct Keys: ParsableCommand {
    static let configuration = CommandConfiguration(
      abstract: "List, add or remove the recipients that sensitive values are sealed for.",
      discussion: """
        A field marked `sensitive: true` in a descriptor is stored as an enc:v1: envelope, sealed for every recipient listed under encryption: recipients: in formsctl.yaml. Adding or removing a recipient seals every sensitive value again for the new list, and rewrites formsctl.yaml, in one journaled operation with one audit record; it needs your identity (FORMSCTL_IDENTITY) to open the values, and your recipient must stay on the list. Someone removed cannot open values sealed from then on; what they could read before stays in git's history.

        Examples:
          formsctl keys list
          formsctl keys add x25519:8mR0k6lq2Hq1y4nAl2bE0v3W7c0dZbq0m9U6h5yZ7Ck=
          formsctl keys reseal --dry-run
        """,
      subcommands: [ListKeys.self, Add.self, Remove.self, Reseal.self]
    )

    struct ListKeys: ParsableCommand {
      static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "Print the store's recipients, marking yours.",
        discussion: """
          Examples:
            formsctl keys list
            formsctl keys list --format json
          """
      )
      @OptionGroup var options: StoreOptions
      @Option(help: "Output: text or json.") var format: TextOrJSON = .text

      func run() throws {
        let store = try options.open()
        let mine = store.keyring.identity?.recipient
        if format == .json {
          let rows = store.layout.recipients.map {
            JSONValue.object(JSONObject(["recipient": .string($0.description), "yours": .bool($0 == mine)]))
          }
          return FileHandleOutput.standardOutput.write(JSONWriter.canonicalString(.array(rows)))
        }
        for recipient in store.layout.recipients {
          printOut(recipient.description + (recipient == mine ? "  (yours)" : ""))
        }
        if store.layout.recipients.isEmpty, !options.quiet {
          FileHandleOutput.standardError.write(
            "no recipients; `formsctl keygen` makes an identity, `formsctl keys add RECIPIENT` adds it\n")
        }
      }
    }

    struct Add: ParsableCommand {
      static let configuration = CommandConfiguration(
        abstract: "Add recipients and seal every sensitive value for them too.",
        discussion: """
          Examples:
            formsctl keys add "$(formsctl keygen --out ../colleague-identity)" --dry-run
            formsctl keys add x25519:8mR0k6lq2Hq1y4nAl2bE0v3W7c0dZbq0m9U6h5yZ7Ck=
          """
      )
      @OptionGroup var options: StoreOptions
      @Argument(help: "Recipients, as `formsctl keygen` prints them (x25519:...).") var recipients: [String]
      @Flag(help: "Say what would change; write nothing.") var dryRun = false

      func run() throws {
        let store = try options.open()
        let given = try Keys.parse(recipients)
        try Keys.reseal(store, "keys add", dryRun: dryRun, quiet: options.quiet) { current throws(StoreError) in
          var list = current
          for recipient in given {
            if list.contains(recipient) { throw StoreError.usage("\(recipient) is already a recipient") }
            list.append(recipient)
          }
          return list
        }
      }
    }

    struct Remove: ParsableCommand {
      static let configuration = CommandConfiguration(
        abstract: "Remove recipients and seal every sensitive value again without them.",
        discussion: """
          Examples:
            formsctl keys add x25519:8mR0k6lq2Hq1y4nAl2bE0v3W7c0dZbq0m9U6h5yZ7Ck=
            formsctl keys remove x25519:8mR0k6lq2Hq1y4nAl2bE0v3W7c0dZbq0m9U6h5yZ7Ck=
          """
      )
      @OptionGroup var options: StoreOptions
      @Argument(help: "Recipients to remove (x25519:...).") var recipients: [String]
      @Flag(help: "Say what would change; write nothing.") var dryRun = false

      func run() throws {
        let store = try options.open()
        let given = try Keys.parse(recipients)
        try Keys.reseal(store, "keys remove", dryRun: dryRun, quiet: options.quiet) { current throws(StoreError) in
          var list = current
          for recipient in given {
            guard let index = list.firstIndex(of: recipient) else {
              throw StoreError.usage("\(recipient) is not a recipient of this store")
            }
            list.remove(at: index)
          }
          if list.isEmpty {
            throw StoreError.usage("that would remove the last recipient, and nobody could open the sensitive values")
          }
          return list
        }
      }
    }

    struct Reseal: ParsableCommand {
      static let configuration = CommandConfiguration(
        abstract: "Seal sensitive values stored in plain text, and those sealed for other recipients.",
        discussion: """
          What `validate` reports as [sensitive] plain text (a value typed into a file by hand, or a field made sensitive by a new descriptor) is sealed; values sealed for another list of recipients (a merge from a branch) are sealed for the current one; the rest is left as it is.

          Examples:
            formsctl keys reseal --dry-run
            formsctl keys reseal
          """
      )
      @OptionGroup var options: StoreOptions
      @Flag(help: "Say what would change; write nothing.") var dryRun = false

      func run() throws {
        let store = try options.open()
        try Keys.reseal(store, "keys reseal", dryRun: dryRun, quiet: options.quiet) { current throws(StoreError) in
          current
        }
      }
    }

    static func parse(_ texts: [String]) throws -> [Recipient] {
      try texts.map { text in
        guard let recipient = Recipient(text) else { throw CommandError.usage(Recipient.problem(text)) }
        return recipient
      }
    }

    static func reseal(
      _ store: Store, _ operation: String, dryRun: Bool, quiet: Bool,
      recipients change: ([Recipient]) throws(StoreError) -> [Recipient]
    ) throws {
      let report = try store.reseal(operation, dryRun: dryRun, recipients: change)
      if !quiet {
        let documents = "\(plural(report.documents, "document"))"
        let count = "\(plural(report.recipients.count, "recipient"))"
        printOut(
          dryRun
            ? "would seal \(plural(report.values, "value")) in \(documents) for \(count); nothing written"
            : "sealed \(plural(report.values, "value")) in \(documents) for \(count)")
      }
      // Snapshots are copies: what was plain text before this reseal stays so in them.
      let exposures = try FormsStore.Snapshots(layout: store.layout).exposures(registry: store.registry)
      guard !exposures.isEmpty else { return }
      let names = exposures.map(\.snapshot.name)
      printWarning(
        "\(plural(exposures.count, "snapshot")) still \(exposures.count == 1 ? "holds" : "hold") sensitive values in "
          + "plain text (\(names.prefix(3).joined(separator: ", "))\(names.count > 3 ? ", …" : "")); "
          + "`formsctl snapshot prune --sensitive` deletes them")
    }
  }
}
