// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {PlainAgents} from "./PlainAgents.sol";

/// @title DemoAgents
/// @notice The "agent" NFT collection of dev/test chains: PlainAgents (ERC-721, open mint) plus
///         ERC-721 Enumerable, so a wallet's agents can be listed (balanceOf + tokenOfOwnerByIndex).
/// @dev `mint` is open to anyone: deploy this contract on development chains only. Enumeration as
///      OpenZeppelin Contracts 5 keeps it (swap-and-pop on a move), with its custom error.
contract DemoAgents is PlainAgents {
    error ERC721OutOfBoundsIndex(address owner, uint256 index);

    uint256[] private _allTokens;
    mapping(uint256 tokenId => uint256) private _allTokensIndex;
    mapping(address owner => mapping(uint256 index => uint256)) private _ownedTokens;
    mapping(uint256 tokenId => uint256) private _ownedTokensIndex;

    function supportsInterface(bytes4 interfaceId) public pure virtual override returns (bool) {
        return interfaceId == 0x780e9d63 // ERC721Enumerable
            || super.supportsInterface(interfaceId);
    }

    function totalSupply() external view returns (uint256) {
        return _allTokens.length;
    }

    function tokenByIndex(uint256 index) external view returns (uint256) {
        if (index >= _allTokens.length) revert ERC721OutOfBoundsIndex(address(0), index);
        return _allTokens[index];
    }

    function tokenOfOwnerByIndex(address owner, uint256 index) external view returns (uint256) {
        if (index >= _balances[owner]) revert ERC721OutOfBoundsIndex(owner, index);
        return _ownedTokens[owner][index];
    }

    /// @dev Balances are already updated: `to` holds its new token at index balance - 1, and the
    ///      last of `from`'s tokens fills the hole the moved one leaves. No burn exists.
    function _afterMove(address from, address to, uint256 tokenId) internal virtual override {
        if (from == address(0)) {
            _allTokensIndex[tokenId] = _allTokens.length;
            _allTokens.push(tokenId);
        } else if (from != to) {
            uint256 lastIndex = _balances[from];
            uint256 index = _ownedTokensIndex[tokenId];
            if (index != lastIndex) {
                uint256 lastTokenId = _ownedTokens[from][lastIndex];
                _ownedTokens[from][index] = lastTokenId;
                _ownedTokensIndex[lastTokenId] = index;
            }
            delete _ownedTokensIndex[tokenId];
            delete _ownedTokens[from][lastIndex];
        }
        if (from != to) {
            uint256 length = _balances[to] - 1;
            _ownedTokens[to][length] = tokenId;
            _ownedTokensIndex[tokenId] = length;
        }
    }
}
