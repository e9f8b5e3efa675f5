// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

/// @title AgentAccessLens
/// @notice Never deployed: the gateway runs its creation code in one eth_call (no `to`), and the
///         constructor returns what the gate needs to know about a caller and an agent NFT, read in
///         that one call: the token's owner, whether the caller is the owner's delegate in
///         delegate.xyz v2's registry, the token's ERC-4907 user and its expiry, and the block time.
///         It never reverts: every read is a bounded low-level static call, and a read that fails,
///         answers short or answers garbage counts as "no" (a lying collection or an absent
///         registry cannot lock the owner out). Only a missing token is said as such.
contract AgentAccessLens {
    bytes4 private constant OWNER_OF = 0x6352211e; // ownerOf(uint256)
    bytes4 private constant CHECK_DELEGATE_FOR_ERC721 = 0xb9f36874; // checkDelegateForERC721(address,address,address,uint256,bytes32)
    bytes4 private constant SUPPORTS_INTERFACE = 0x01ffc9a7; // supportsInterface(bytes4)
    bytes4 private constant ERC4907 = 0xad092b5c;
    bytes4 private constant USER_OF = 0xc2f1f14a; // userOf(uint256)
    bytes4 private constant USER_EXPIRES = 0x8fc88c48; // userExpires(uint256)

    struct Query {
        address collection;
        uint256 tokenId;
        address caller;
        address registry;
        bytes32 right;
    }

    struct Answer {
        bool exists;
        address owner;
        bool delegate;
        bool rentable;
        address user;
        uint256 userExpires;
        uint256 timestamp;
    }

    /// @param collection the agent NFT's collection
    /// @param tokenId the agent's token id
    /// @param caller the wallet asking (the bearer token's or the agent key maker's)
    /// @param registry delegate.xyz v2's DelegateRegistry (no code there: no delegation)
    /// @param right the gateway's own right; a full delegation (rights zero) counts too
    /// @dev Returns abi.encode(bool exists, address owner, bool delegate, bool rentable,
    ///      address user, uint256 userExpires, uint256 timestamp).
    constructor(address collection, uint256 tokenId, address caller, address registry, bytes32 right) {
        bytes memory out = abi.encode(look(Query(collection, tokenId, caller, registry, right)));
        assembly {
            return(add(out, 32), mload(out))
        }
    }

    function look(Query memory q) private view returns (Answer memory a) {
        a.timestamp = block.timestamp;
        (bool ok, uint256 word) = read(q.collection, abi.encodeWithSelector(OWNER_OF, q.tokenId), gasleft());
        a.exists = ok && word != 0 && word <= type(uint160).max;
        if (!a.exists) return a;
        a.owner = address(uint160(word));
        if (a.owner == q.caller) return a;
        a.delegate = isDelegate(q, a.owner, bytes32(0)) || (q.right != bytes32(0) && isDelegate(q, a.owner, q.right));
        (ok, word) = read(q.collection, abi.encodeWithSelector(SUPPORTS_INTERFACE, ERC4907), 30_000);
        a.rentable = ok && word == 1;
        if (!a.rentable) return a;
        (ok, word) = read(q.collection, abi.encodeWithSelector(USER_OF, q.tokenId), 100_000);
        if (ok && word <= type(uint160).max) a.user = address(uint160(word));
        (ok, word) = read(q.collection, abi.encodeWithSelector(USER_EXPIRES, q.tokenId), 100_000);
        if (ok) a.userExpires = word;
    }

    function isDelegate(Query memory q, address owner, bytes32 rights) private view returns (bool) {
        (bool ok, uint256 word) = read(
            q.registry,
            abi.encodeWithSelector(CHECK_DELEGATE_FOR_ERC721, q.caller, owner, q.collection, q.tokenId, rights),
            500_000
        );
        return ok && word == 1;
    }

    /// @dev A static call that copies at most one word back (a huge answer costs the callee, not us):
    ///      ok only when the call succeeded, the target has code and the answer holds a whole word.
    function read(address target, bytes memory data, uint256 gasLimit) private view returns (bool ok, uint256 word) {
        if (target.code.length == 0) return (false, 0);
        assembly {
            let success := staticcall(gasLimit, target, add(data, 32), mload(data), 0, 0)
            if and(success, iszero(lt(returndatasize(), 32))) {
                returndatacopy(0, 0, 32)
                word := mload(0)
                ok := 1
            }
        }
    }
}
