import ArgumentParser
import FormsCommandLine
import FormsCore
import FormsStore
import Foundation

extension Formsctl {
  struct Keygen: ParsableCommand {
    static let configuration = CommandConfiguration(
      commandName: "keygen",
      abstract: "Make an identity (a private key) for sensitive fields and approvals, and print its recipient.",
      discussion: """
        Writes a new X25519 identity to --out, else FORMSCTL_IDENTITY, else ~/.config/formsctl/identity, with mode 0600, and prints its recipient (the public key) on stdout. An existing file is never replaced, and no identity is written inside a store. Give the recipient to a key holder of each store, who runs `formsctl keys add RECIPIENT`; from then on formsctl opens the store's sensitive values for you. The same identity signs approvals with an Ed25519 key derived from it: its signer (ed25519:...), printed on stderr (on stdout instead of the recipient with --signer), is what a store lists under a role in formsctl.yaml's roles:.

        Examples:
          formsctl keygen --out ../my-identity
          formsctl keygen --out ../colleague-identity
          formsctl keygen --signer --out ../reviewer-identity
        """
    )
    @Option(
      help: ArgumentHelp(
        "Where to write the identity (default: FORMSCTL_IDENTITY, else ~/.config/formsctl/identity).", valueName: "FILE"
      ))
    var out: String?
    @Flag(help: "Print the signer (ed25519:..., for roles: in formsctl.yaml) on stdout instead of the recipient.")
    var signer = false

    func run() throws {
      let path =
        out.map { (FilePath(FileIO.currentDirectory) / $0).string }
        ?? Identity.defaultPath(environment: ProcessInfo.processInfo.environment)
      let identity = Identity.generate()
      try identity.write(to: path, created: Instant(StoreOptions.clock()).rfc3339)
      printOut(signer ? identity.signer.description : identity.recipient.description)
      FileHandleOutput.standardError.write(
        "wrote the identity \(path) (mode 0600); a key holder adds its recipient with `formsctl keys add \(identity.recipient)`\n"
          + "signer: \(identity.signer) (the key that signs your approvals; list it under a role in formsctl.yaml's roles:)\n"
      )
    }
  }
}
