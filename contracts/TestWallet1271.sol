// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

/// @title TestWallet1271
/// @notice Minimal ERC-1271 smart-contract wallet for tests. A signature is valid when it is a
///         65-byte (r, s, v) ECDSA signature over `hash` by `owner`. Can also receive ERC-721 tokens.
/// @dev No execution capabilities: NFTs sent here stay here. Test use only.
contract TestWallet1271 {
    bytes4 internal constant MAGIC_VALUE = 0x1626ba7e; // bytes4(keccak256("isValidSignature(bytes32,bytes)"))
    bytes4 internal constant INVALID_VALUE = 0xffffffff;
    /// @dev secp256k1n / 2: larger `s` values are malleable (EIP-2).
    uint256 internal constant HALF_ORDER = 0x7FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFF5D576E7357A4501DDFE92F46681B20A0;

    address public immutable owner;

    constructor(address owner_) {
        owner = owner_;
    }

    function isValidSignature(bytes32 hash, bytes calldata signature) external view returns (bytes4) {
        if (signature.length != 65) return INVALID_VALUE;
        bytes32 r = bytes32(signature[0:32]);
        bytes32 s = bytes32(signature[32:64]);
        uint8 v = uint8(signature[64]);
        if (v < 27) v += 27; // accept 0/1 recovery ids too
        if (v != 27 && v != 28) return INVALID_VALUE;
        if (uint256(s) > HALF_ORDER) return INVALID_VALUE;
        address signer = ecrecover(hash, v, r, s);
        if (signer == address(0) || signer != owner) return INVALID_VALUE;
        return MAGIC_VALUE;
    }

    function onERC721Received(address, address, uint256, bytes calldata) external pure returns (bytes4) {
        return this.onERC721Received.selector;
    }

    function supportsInterface(bytes4 interfaceId) external pure returns (bool) {
        return interfaceId == 0x01ffc9a7 // ERC165
            || interfaceId == 0x150b7a02 // ERC721TokenReceiver
            || interfaceId == 0x1626ba7e; // ERC1271
    }
}
