// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

/// @title DelegateRegistryStandIn
/// @notice The local chains' stand-in for delegate.xyz v2's DelegateRegistry: written here from its
///         documented interface and behaviour, not from its source, and placed by the dev stack and
///         the test harness at the registry's canonical address
///         (0x00000000000000447e69651d841bD8D104Bed493), so the gateway reads it exactly as it
///         reads the real registry on Polygon. delegate.xyz's own code and bytecode stay out of this
///         repository; this contract answers the same calls with the same meaning:
///         - a wallet (`from`) delegates to another (`to`) for all its tokens (ALL), one collection
///           (CONTRACT) or one token (ERC721), with full rights (`rights` zero) or one named right;
///         - `enable = false` revokes: the delegation leaves the checks and the lists;
///         - a check for rights R is satisfied by a full delegation or by one for exactly R, and a
///           token check by a wallet-wide, collection-wide or token delegation.
/// @dev Development chains only. ERC-20 and ERC-1155 delegations are not offered (the gateway reads
///      ERC-721 tokens only); their type numbers are kept so the list entries decode alike.
contract DelegateRegistryStandIn {
    enum DelegationType {
        NONE,
        ALL,
        CONTRACT,
        ERC721,
        ERC20,
        ERC1155
    }

    struct Delegation {
        DelegationType type_;
        address to;
        address from;
        bytes32 rights;
        address contract_;
        uint256 tokenId;
        uint256 amount;
    }

    event DelegateAll(address indexed from, address indexed to, bytes32 rights, bool enable);
    event DelegateContract(address indexed from, address indexed to, address indexed contract_, bytes32 rights, bool enable);
    event DelegateERC721(
        address indexed from, address indexed to, address indexed contract_, uint256 tokenId, bytes32 rights, bool enable
    );

    /// @dev Every delegation ever made, by its hash; `live` says whether it currently holds.
    mapping(bytes32 hash => Delegation) private _delegations;
    mapping(bytes32 hash => bool) private _live;
    /// @dev Hashes in the order first made; a revoked one stays here and is skipped when listed.
    mapping(address to => bytes32[]) private _incoming;
    mapping(address from => bytes32[]) private _outgoing;

    // ---------------------------------------------------------------------
    // Writes: the caller is always the delegating wallet
    // ---------------------------------------------------------------------

    function delegateAll(address to, bytes32 rights, bool enable) external payable returns (bytes32 delegationHash) {
        delegationHash = _set(DelegationType.ALL, to, rights, address(0), 0, enable);
        emit DelegateAll(msg.sender, to, rights, enable);
    }

    function delegateContract(address to, address contract_, bytes32 rights, bool enable)
        external
        payable
        returns (bytes32 delegationHash)
    {
        delegationHash = _set(DelegationType.CONTRACT, to, rights, contract_, 0, enable);
        emit DelegateContract(msg.sender, to, contract_, rights, enable);
    }

    function delegateERC721(address to, address contract_, uint256 tokenId, bytes32 rights, bool enable)
        external
        payable
        returns (bytes32 delegationHash)
    {
        delegationHash = _set(DelegationType.ERC721, to, rights, contract_, tokenId, enable);
        emit DelegateERC721(msg.sender, to, contract_, tokenId, rights, enable);
    }

    // ---------------------------------------------------------------------
    // Checks
    // ---------------------------------------------------------------------

    function checkDelegateForAll(address to, address from, bytes32 rights) public view returns (bool) {
        return _holds(DelegationType.ALL, to, from, rights, address(0), 0);
    }

    function checkDelegateForContract(address to, address from, address contract_, bytes32 rights)
        public
        view
        returns (bool)
    {
        return checkDelegateForAll(to, from, rights) || _holds(DelegationType.CONTRACT, to, from, rights, contract_, 0);
    }

    function checkDelegateForERC721(address to, address from, address contract_, uint256 tokenId, bytes32 rights)
        external
        view
        returns (bool)
    {
        return checkDelegateForContract(to, from, contract_, rights)
            || _holds(DelegationType.ERC721, to, from, rights, contract_, tokenId);
    }

    // ---------------------------------------------------------------------
    // Lists: the delegations that hold now, oldest first
    // ---------------------------------------------------------------------

    function getIncomingDelegations(address to) external view returns (Delegation[] memory delegations) {
        return _liveOf(_incoming[to]);
    }

    function getOutgoingDelegations(address from) external view returns (Delegation[] memory delegations) {
        return _liveOf(_outgoing[from]);
    }

    // ---------------------------------------------------------------------
    // Internals
    // ---------------------------------------------------------------------

    function _hash(DelegationType type_, address to, address from, bytes32 rights, address contract_, uint256 tokenId)
        private
        pure
        returns (bytes32)
    {
        return keccak256(abi.encode(type_, to, from, rights, contract_, tokenId));
    }

    /// @dev A full delegation (rights zero) satisfies any check; one for a named right only a check for it.
    function _holds(DelegationType type_, address to, address from, bytes32 rights, address contract_, uint256 tokenId)
        private
        view
        returns (bool)
    {
        if (_live[_hash(type_, to, from, bytes32(0), contract_, tokenId)]) return true;
        return rights != bytes32(0) && _live[_hash(type_, to, from, rights, contract_, tokenId)];
    }

    function _set(DelegationType type_, address to, bytes32 rights, address contract_, uint256 tokenId, bool enable)
        private
        returns (bytes32 hash)
    {
        hash = _hash(type_, to, msg.sender, rights, contract_, tokenId);
        if (_delegations[hash].type_ == DelegationType.NONE) {
            if (!enable) return hash; // revoking what never existed changes nothing
            _delegations[hash] = Delegation(type_, to, msg.sender, rights, contract_, tokenId, 0);
            _incoming[to].push(hash);
            _outgoing[msg.sender].push(hash);
        }
        _live[hash] = enable;
    }

    function _liveOf(bytes32[] storage hashes) private view returns (Delegation[] memory out) {
        uint256 count;
        for (uint256 i; i < hashes.length; ++i) {
            if (_live[hashes[i]]) ++count;
        }
        out = new Delegation[](count);
        uint256 j;
        for (uint256 i; i < hashes.length; ++i) {
            if (_live[hashes[i]]) out[j++] = _delegations[hashes[i]];
        }
    }
}
