extension Schema {
  /// Approval chains (descriptor `approvals:`): a workflow state a chain guards is reached only
  /// when each of its steps has been signed by as many distinct holders of its role as it asks,
  /// none of them the person who submitted the document (moved it into the chain's review state)
  /// or the signer of another step. Signatures live in the document's `_approvals` member.
  public struct Approvals: Sendable {
    /// One step of a chain: `count` distinct holders of `role` sign it.
    public struct Step: Sendable, Equatable {
      public let name: String
      public let role: String
      public let count: Int

      public init(name: String, role: String, count: Int) {
        self.name = name
        self.role = role
        self.count = count
      }
    }

    /// The move `from` → `to` and what it needs.
    public struct Chain: Sendable, Equatable {
      /// The review state: moving into it is the signed submission that names the preparer.
      public let from: String
      /// The guarded state.
      public let to: String
      /// Where `reject` moves the document, if anywhere.
      public let rejectTo: String?
      /// Steps are signed in the order given (else in any order).
      public let ordered: Bool
      public let steps: [Step]

      public init(from: String, to: String, rejectTo: String?, ordered: Bool, steps: [Step]) {
        self.from = from
        self.to = to
        self.rejectTo = rejectTo
        self.ordered = ordered
        self.steps = steps
      }

      public var transition: String { "\(from) → \(to)" }
    }

    /// What a change of signed content does to a document in a guarded state.
    public enum OnChange: String, Sendable, CaseIterable {
      /// The change is refused: approved content is fixed (until the workflow moves it out).
      case refuse
      /// The change is made and the document goes back to the chain's review state, to be approved again.
      case reopen
    }

    /// The fields a completing approval fills in (`fills: {by: FIELD, on: FIELD}`): who approved
    /// (the signer's name in the manifest) and when (the signing date, or time for a datetime).
    /// The signature is the approval, so nobody types them; they are free (signatures do not
    /// cover them), so filling them voids nothing.
    public struct Fills: Sendable, Equatable {
      public let by: String?
      public let on: String?

      public init(by: String?, on: String?) {
        self.by = by
        self.on = on
      }
    }

    public let chains: [Chain]
    /// Top-level fields a signature does not cover (notes, working fields, what `fills` names).
    public let free: [String]
    public let onChange: OnChange
    public let fills: Fills?

    public init(chains: [Chain], free: [String], onChange: OnChange, fills: Fills? = nil) {
      self.chains = chains
      self.free = free
      self.onChange = onChange
      self.fills = fills
    }

    /// The chain that guards `state`.
    public func guarding(_ state: String) -> Chain? { chains.first { $0.to == state } }

    /// The chain whose review state is `state`.
    public func reviewing(_ state: String) -> Chain? { chains.first { $0.from == state } }

    /// Every role a chain names, sorted.
    public var roles: [String] { Array(Set(chains.flatMap { $0.steps.map(\.role) })).sorted() }
  }
}
